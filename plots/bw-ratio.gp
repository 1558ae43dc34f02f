# Figure: what-if sweep of the outer (pod) bandwidth: Themis speedup and baseline utilization.
# columns: dims[2].bw_GBps,policy,intra,speedup,bw_util
load plotdir.'/common.gpi'
set title 'What if the pod bandwidth changes? (default-3d, 1 GiB All-Reduce, 64 chunks)'
set xlabel 'pod (dim 2) bandwidth per NPU (GB/s, log scale)'
set ylabel 'speedup over baseline + FIFO (x)'
set y2label 'network BW utilization (%)'
set logscale x 2
set xtics 2 format '%g'
set yrange [0:*]
set y2range [0:105]
set y2tics 0, 20, 100 nomirror
set ytics nomirror
set key at screen 0.5, 0.01 center bottom horizontal maxrows 3
set bmargin 8
set xrange [5:1000]
bw = 'dims[2].bw_GBps'
plot 1 with lines dt 2 lc rgb '#999999' title 'no change', \
     where('policy=themis intra=fifo') using bw:'speedup' with linespoints ls 2 \
         title 'speedup, Themis + FIFO', \
     where('policy=themis intra=scf') using bw:'speedup' with linespoints ls 3 \
         title 'speedup, Themis + SCF', \
     where('policy=baseline intra=fifo') using bw:(100 * column('bw_util')) axes x1y2 \
         with linespoints ls 1 dt 3 title 'BW utilization, baseline (right axis)', \
     where('policy=themis intra=scf') using bw:(100 * column('bw_util')) axes x1y2 \
         with linespoints ls 3 dt 3 title 'BW utilization, Themis + SCF (right axis)'
