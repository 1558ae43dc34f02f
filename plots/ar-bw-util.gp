# Figure: single All-Reduce network BW utilization per system, baseline vs Themis+FIFO/SCF.
# columns: system,policy,intra,bw_util
load plotdir.'/common.gpi'
set title 'All-Reduce network BW utilization (1 GiB, 64 chunks)'
set ylabel 'network BW utilization (%)'
set yrange [0:115]
set ytics 0,20,100
set xtics rotate by 30 right font ',9' scale 0
set style fill solid 0.85 border -1
set boxwidth 0.26
set key top left horizontal
is(p, q) = strcol('policy') eq p && strcol('intra') eq q
# x = index of the system, counted as rows go by (rows are grouped by system)
sysx(dx) = (s = strcol('system'), s ne prev ? (n = n + 1, prev = s) : 0, n + dx)
set xrange [-0.6:*]
plot prev = '', n = -1, csv using (sysx(-0.28)):(is('baseline', 'fifo') ? 100 * column('bw_util') : NaN) \
         with boxes lc rgb c_base title 'baseline', \
     prev = '', n = -1, csv using (sysx(0)):(is('themis', 'fifo') ? 100 * column('bw_util') : NaN) \
         with boxes lc rgb c_fifo title 'Themis + FIFO', \
     prev = '', n = -1, csv using (sysx(0.28)):(is('themis', 'scf') ? 100 * column('bw_util') : NaN):xtic(is('themis', 'scf') ? sysname(strcol('system')) : '') \
         with boxes lc rgb c_scf title 'Themis + SCF', \
     100 with lines dt 2 lc rgb c_ideal lw 1.5 title 'ideal (100%)'
