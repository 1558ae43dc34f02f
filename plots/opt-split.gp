# Figure: the best split of default-3d's 500 GB/s over its dims vs All-Reduce size, per policy.
# columns: size_bytes,policy,spent,dim0_bw_GBps,dim1_bw_GBps,dim2_bw_GBps
load plotdir.'/common.gpi'
set title 'Best split of 500 GB/s per NPU on default-3d (All-Reduce, 64 chunks, SCF; dotted baseline, dashed Themis, solid lp)'
set xlabel 'All-Reduce size (log scale)'
set ylabel 'share of the budget'
set logscale x 2
set xrange [2**19.5:2**32.5]
set xtics 4 format ''
set for [e = 20:32:2] xtics add (sizelabel(2**e) 2**e)
set key outside right top vertical
set yrange [0:1]
names = 'package node pod'
plot for [d = 0:2] where('policy=lp') using 'size_bytes':(column(sprintf('dim%d_bw_GBps', d)) / column('spent')) \
         with linespoints lw 2 pt 7 ps 0.7 lc rgb syscolor(d + 1) title word(names, d + 1), \
     for [d = 0:2] where('policy=themis') using 'size_bytes':(column(sprintf('dim%d_bw_GBps', d)) / column('spent')) \
         with lines lw 1.2 dt 2 lc rgb syscolor(d + 1) notitle, \
     for [d = 0:2] where('policy=baseline') using 'size_bytes':(column(sprintf('dim%d_bw_GBps', d)) / column('spent')) \
         with lines lw 1.2 dt 3 lc rgb syscolor(d + 1) notitle
