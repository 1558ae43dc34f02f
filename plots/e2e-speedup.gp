# Figure: end-to-end training-iteration speedup over baseline+FIFO, one panel per workload, a
# group of bars per system: baseline (= 1), Themis+FIFO, Themis+SCF and the ideal network.
# columns: workload,batch,system,policy,intra,speedup,ideal_speedup
load plotdir.'/common.gpi'
workloads = distinct('workload')
nw = words(workloads)
nsys = words(distinct('system'))
set xrange [-0.55:nsys - 0.45]
set multiplot layout (nw + 1) / 2, (nw > 1 ? 2 : 1) \
    title 'End-to-end training iteration: speedup over baseline + FIFO (per-NPU batch in each title)' \
    margins 0.07, 0.99, 0.08, 0.83 spacing 0.06, 0.14
set ylabel 'speedup (x)' offset 1.5, 0
set style fill solid 0.85 border -1
set boxwidth 0.19
# One legend for every panel, in a row under the title (a key is only as wide as its panel).
set key off
names = 'baseline|Themis + FIFO|Themis + SCF|ideal network'
legend_colors = c_base.' '.c_fifo.' '.c_scf.' '.c_ideal
legend_x(k) = 0.22 + 0.15 * (k - 1)
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
# "resnet152" -> "ResNet-152"
pretty(w) = w eq 'resnet50' ? 'ResNet-50' : w eq 'resnet152' ? 'ResNet-152' : \
            w eq 'gnmt' ? 'GNMT' : w eq 'dlrm' ? 'DLRM' : \
            w eq 'transformer-1t' ? 'Transformer-1T' : w
# awk over the CSV: k[name] is a column's index. The batch of workload w (its first row), and
# its largest bar (speedup or ideal_speedup), for the panel's y range.
hdr = 'NR == 1 { for (i = 1; i <= NF; i++) k[$i] = i; next } '
awk(prog) = system(sprintf("awk -F, '%s%s' '%s'", hdr, prog, csv))
batchof(w) = awk(sprintf('$k["workload"] == "%s" { print $k["batch"]; exit }', w))
ymax(w) = real(awk(sprintf('$k["workload"] == "%s" { if ($k["speedup"] > m) m = $k["speedup"]; ' . \
                          'if ($k["ideal_speedup"] > m) m = $k["ideal_speedup"] } END { print m + 0 }', w)))
lbl(v) = sprintf('%.2f', v)
do for [i = 1:nw] {
    w = word(workloads, i)
    set title sprintf('%s, batch %s', pretty(sysname(w)), batchof(w)) font font_title
    if (i == 2) { unset object; unset label }  # the legend, drawn once with the first panel
    top = ymax(w)
    set yrange [0:(top < 1.2 ? 1.2 : top) * 1.22]
    # Rows of one (policy, intra) pair of this workload, one per system in order, so $0 is
    # the system's index; the labels top the Themis + SCF and ideal bars.
    plot where('workload='.w.' policy=baseline intra=fifo') \
             using ($0 - 0.3):'speedup' with boxes lc rgb c_base notitle, \
         where('workload='.w.' policy=themis intra=fifo') \
             using ($0 - 0.1):'speedup' with boxes lc rgb c_fifo notitle, \
         where('workload='.w.' policy=themis intra=scf') \
             using ($0 + 0.1):'speedup' with boxes lc rgb c_scf notitle, \
         where('workload='.w.' policy=baseline intra=fifo') \
             using ($0 + 0.3):'ideal_speedup' with boxes lc rgb c_ideal notitle, \
         where('workload='.w.' policy=themis intra=scf') \
             using ($0 + 0.1):'speedup':(lbl(column('speedup'))) \
             with labels rotate by 90 left offset 0, 0.3 font font_bar notitle, \
         where('workload='.w.' policy=baseline intra=fifo') \
             using ($0 + 0.3):'ideal_speedup':(lbl(column('ideal_speedup'))) \
             with labels rotate by 90 left offset 0, 0.3 font font_bar notitle, \
         where('workload='.w.' policy=baseline intra=fifo') \
             using ($0):(column('speedup') * NaN):xtic(sysname(strcol('system'))) with points notitle, \
         1 with lines dt 2 lc rgb '#999999' notitle
}
unset multiplot
