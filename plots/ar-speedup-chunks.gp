# Figure: Themis speedup over baseline+FIFO vs chunk count, one line per system.
# columns: system,chunks,intra,speedup
load plotdir.'/common.gpi'
set title 'Themis speedup over baseline vs chunk count (1 GiB All-Reduce; solid SCF, dashed FIFO)'
set xlabel 'chunks per collective (log scale)'
set ylabel 'speedup over baseline + FIFO (x)'
set logscale x 2
set xrange [0.7:1400]
set xtics 2 format '%g'
set key outside right top vertical
set yrange [0:*]
systems = distinct('system')
plot 1 with lines dt 2 lc rgb '#999999' title 'no change', \
     for [i = 1:words(systems)] where('system='.word(systems, i).' intra=scf') \
         using 'chunks':'speedup' with linespoints lw 2 pt 7 ps 0.7 lc rgb syscolor(i) title sysname(word(systems, i)).' (SCF)', \
     for [i = 1:words(systems)] where('system='.word(systems, i).' intra=fifo') \
         using 'chunks':'speedup' with lines lw 1.2 dt 2 lc rgb syscolor(i) notitle
