# Figure: bound / time of Themis and lp (SCF) vs chunk count, one colour per system.
# columns: system,chunks,policy,vs_bound
load plotdir.'/common.gpi'
set title 'Fraction of the optimal bound reached (1 GiB All-Reduce, SCF; solid lp, dashed Themis)'
set xlabel 'chunks per collective (log scale)'
set ylabel 'bound / time'
set logscale x 2
set xrange [0.7:1400]
set xtics 2 format '%g'
set key outside right top vertical
set yrange [0:1.05]
systems = distinct('system')
plot 1 with lines dt 2 lc rgb '#999999' title 'the bound', \
     for [i = 1:words(systems)] where('system='.word(systems, i).' policy=lp') \
         using 'chunks':'vs_bound' with linespoints lw 2 pt 7 ps 0.7 lc rgb syscolor(i) title sysname(word(systems, i)).' (lp)', \
     for [i = 1:words(systems)] where('system='.word(systems, i).' policy=themis') \
         using 'chunks':'vs_bound' with lines lw 1.2 dt 2 lc rgb syscolor(i) notitle
