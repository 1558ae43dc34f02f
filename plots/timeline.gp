# Figure: per-dimension Gantt chart of one All-Reduce, baseline+FIFO above Themis+SCF, drawn
# from `themis run --trace`; one colour per chunk, Reduce-Scatter solid, All-Gather pale.
# columns: policy,intra,chunk,op,dim,start_us,end_us
load plotdir.'/common.gpi'
if (fmt eq 'pdf') {
    set terminal pdfcairo enhanced color font 'Sans,9' size 6in,4.2in linewidth 1.5
} else {
    set terminal pngcairo enhanced color font 'Sans,11' size 1000,700 linewidth 1.5
}
set output out
if (!exists('label')) label = ''
stats where('policy=baseline intra=fifo') using 'end_us' nooutput
tmax = STATS_max
stats csv using 'dim' nooutput
ndims = int(STATS_max) + 1
stats csv using 'chunk' nooutput
nchunks = int(STATS_max) + 1
chunkcolor(c) = word('#0072b2 #e69f00 #009e73 #cc79a7 #56b4e9 #d55e00 #7f7f7f #f0e442', int(c) % 8 + 1)
rgbof(c) = int('0x'.chunkcolor(c)[2:7])
# The colour mixed 55% with white (for All-Gather stages).
pale1(x) = int(255 - (255 - x) * 0.45)
pale(v) = pale1((v >> 16) & 255) * 65536 + pale1((v >> 8) & 255) * 256 + pale1(v & 255)
set xrange [0:tmax * 1.02]
set yrange [-0.6:ndims - 0.4]
set ytics 1
set grid noytics
set grid xtics lc rgb '#dddddd'
set ylabel 'dimension'
set style fill solid 1.0 border lc rgb '#333333'
set key off
set multiplot layout 2, 1 title sprintf('Per-dimension timeline of one All-Reduce (%s%d chunks): idle dimensions disappear', label, nchunks)
box(op) = strcol('op') eq op
do for [p in 'baseline themis'] {
    q = p eq 'baseline' ? 'fifo' : 'scf'
    set title (p eq 'baseline' ? 'baseline + FIFO' : 'Themis + SCF') . ' (colour = chunk; solid = Reduce-Scatter, pale = All-Gather)'
    if (p eq 'themis') { set xlabel 'time (µs)' } else { unset xlabel }
    plot where('policy='.p.' intra='.q) \
             using ((column('start_us') + column('end_us')) / 2):'dim': \
                   ((column('end_us') - column('start_us')) / 2):(0.38): \
                   (box('RS') ? rgbof(column('chunk')) : pale(rgbof(column('chunk')))) \
             with boxxyerror fc rgb variable
}
unset multiplot
