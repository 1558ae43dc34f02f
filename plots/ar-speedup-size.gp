# Figure: Themis speedup over baseline+FIFO vs All-Reduce size, one line per system.
# columns: system,size,intra,speedup
load plotdir.'/common.gpi'
set title 'Themis speedup over baseline vs All-Reduce size (64 chunks; solid SCF, dashed FIFO)'
set xlabel 'All-Reduce size (log scale)'
set ylabel 'speedup over baseline + FIFO (x)'
set logscale x 2
set xrange [2**15.5:2**32.5]
set xtics 4 format ''
set for [e = 16:32:2] xtics add (sizelabel(2**e) 2**e)
set key outside right top vertical
systems = distinct('system')
plot 1 with lines dt 2 lc rgb '#999999' title 'no change', \
     for [i = 1:words(systems)] where('system='.word(systems, i).' intra=scf') \
         using 'size':'speedup' with linespoints lw 2 pt 7 ps 0.7 lc rgb syscolor(i) title sysname(word(systems, i)).' (SCF)', \
     for [i = 1:words(systems)] where('system='.word(systems, i).' intra=fifo') \
         using 'size':'speedup' with lines lw 1.2 dt 2 lc rgb syscolor(i) notitle
