# Figure: per-dimension BW utilization, baseline+FIFO vs Themis+SCF, one panel per system.
# columns: system,policy,intra,dim0_bw_util,dim1_bw_util
load plotdir.'/common.gpi'
set multiplot layout 1, 2 title 'Per-dimension BW utilization of a 1 GiB All-Reduce (64 chunks)'
set ylabel 'dimension BW utilization (%)'
set xlabel 'dimension (0 = innermost)'
set yrange [0:119]
set ytics 0, 20, 100
set xrange [-0.6:3.6]
set xtics 1 scale 0
set style fill solid 0.85 border -1
set boxwidth 0.36
set key top right horizontal
systems = distinct('system')
ndims = 4
dimcol(k) = sprintf('dim%d_bw_util', k)
do for [i = 1:words(systems)] {
    s = word(systems, i)
    set title sysname(s)
    plot for [k = 0:ndims - 1] where('system='.s.' policy=baseline intra=fifo') \
             using (k - 0.19):(100 * column(dimcol(k))) with boxes lc rgb c_base \
             title (k == 0 ? 'baseline + FIFO' : ''), \
         for [k = 0:ndims - 1] where('system='.s.' policy=themis intra=scf') \
             using (k + 0.19):(100 * column(dimcol(k))) with boxes lc rgb c_scf \
             title (k == 0 ? 'Themis + SCF' : '')
}
unset multiplot
