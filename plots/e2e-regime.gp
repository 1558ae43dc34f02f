# Figure: the regime study (docs/REPRODUCTION.md): per workload, per system, the iteration
# speedup over baseline + FIFO of Themis + SCF and of the ideal network, in the paper's regime
# (chunking astra: 64 chunks, 1 ns links, ASTRA-sim-style compute) and in ours (chunking
# capped, 25 MiB buckets, realistic latencies). out/e2e-regime.csv is the e2e-regime-paper
# and e2e-regime-ours sweeps one after the other (scripts/figures).
# columns: workload,batch,system,chunking,policy,intra,speedup,ideal_speedup
load plotdir.'/common.gpi'
workloads = distinct('workload')
nw = words(workloads)
nsys = words(distinct('system'))
set xrange [-0.55:nsys - 0.45]
set multiplot layout (nw + 1) / 2, (nw > 1 ? 2 : 1) \
    title 'Regime study: iteration speedup over baseline + FIFO, the paper''s regime and ours' \
    margins 0.07, 0.99, 0.08, 0.83 spacing 0.06, 0.14
set ylabel 'speedup (x)' offset 1.5, 0
set style fill solid 0.85 border -1
set boxwidth 0.19
set key off
c_paper_ideal = '#98df8a'
names = 'Themis + SCF, paper''s regime|ideal, paper''s regime|Themis + SCF, ours|ideal, ours'
legend_colors = c_scf.' '.c_paper_ideal.' '.c_fifo.' '.c_ideal
legend_x(k) = 0.06 + 0.235 * (k - 1)
font_small = fmt eq 'pdf' ? ',7' : ',10'
font_title = fmt eq 'pdf' ? ',9' : ',11'
font_bar = fmt eq 'pdf' ? ',6' : ',8'
font_tics = fmt eq 'pdf' ? ',7' : ',9'
set xtics scale 0 font font_tics
set ytics font font_tics
do for [k = 1:4] {
    col = word(legend_colors, k)
    set object k rectangle from screen legend_x(k), screen 0.905 \
        to screen legend_x(k) + 0.022, screen 0.935 fillcolor rgb col fillstyle solid 0.85 border lc rgb 'black' front
    n = strstrt(names, '|')
    entry = n ? names[1:n - 1] : names
    set label k entry at screen legend_x(k) + 0.03, screen 0.92 left font font_small front
    names = n ? names[n + 1:] : ''
}
pretty(w) = w eq 'resnet50' ? 'ResNet-50' : w eq 'resnet152' ? 'ResNet-152' : \
            w eq 'gnmt' ? 'GNMT' : w eq 'dlrm' ? 'DLRM' : \
            w eq 'transformer-1t' ? 'Transformer-1T' : w
hdr = 'NR == 1 { for (i = 1; i <= NF; i++) k[$i] = i; next } '
awk(prog) = system(sprintf("awk -F, '%s%s' '%s'", hdr, prog, csv))
batchof(w, c) = awk(sprintf('$k["workload"] == "%s" && $k["chunking"] == "%s" { print $k["batch"]; exit }', w, c))
ymax(w) = real(awk(sprintf('$k["workload"] == "%s" { if ($k["speedup"] > m) m = $k["speedup"]; ' . \
                          'if ($k["ideal_speedup"] > m) m = $k["ideal_speedup"] } END { print m + 0 }', w)))
lbl(v) = sprintf('%.2f', v)
do for [i = 1:nw] {
    w = word(workloads, i)
    set title sprintf('%s, batch %s (paper''s) / %s (ours)', pretty(sysname(w)), \
        batchof(w, 'astra'), batchof(w, 'capped')) font font_title
    if (i == 2) { unset object; unset label }
    top = ymax(w)
    set yrange [0:(top < 1.2 ? 1.2 : top) * 1.22]
    # Rows of one (regime, pair) of this workload, one per system in order: $0 is the system.
    plot where('workload='.w.' chunking=astra policy=themis intra=scf') \
             using ($0 - 0.3):'speedup' with boxes lc rgb c_scf notitle, \
         where('workload='.w.' chunking=astra policy=baseline intra=fifo') \
             using ($0 - 0.1):'ideal_speedup' with boxes lc rgb c_paper_ideal notitle, \
         where('workload='.w.' chunking=capped policy=themis intra=scf') \
             using ($0 + 0.1):'speedup' with boxes lc rgb c_fifo notitle, \
         where('workload='.w.' chunking=capped policy=baseline intra=fifo') \
             using ($0 + 0.3):'ideal_speedup' with boxes lc rgb c_ideal notitle, \
         where('workload='.w.' chunking=astra policy=themis intra=scf') \
             using ($0 - 0.3):'speedup':(lbl(column('speedup'))) \
             with labels rotate by 90 left offset 0, 0.3 font font_bar notitle, \
         where('workload='.w.' chunking=capped policy=themis intra=scf') \
             using ($0 + 0.1):'speedup':(lbl(column('speedup'))) \
             with labels rotate by 90 left offset 0, 0.3 font font_bar notitle, \
         where('workload='.w.' chunking=astra policy=baseline intra=fifo') \
             using ($0):(column('speedup') * NaN):xtic(sysname(strcol('system'))) with points notitle, \
         1 with lines dt 2 lc rgb '#999999' notitle
}
unset multiplot
