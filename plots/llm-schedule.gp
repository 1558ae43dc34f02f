# Figure: what the inter-dim schedule of the data-parallel collectives changes in an LLM
# training iteration: iteration time per policy (baseline, Themis, lp, the ideal network),
# normalised to baseline + SCF, for DP-heavy executions on the equal-dim torus and on DGX A100.
# columns: workload,system,policy,intra,iteration_us,dp_exposed_us
load plotdir.'/common.gpi'
set title 'LLM iteration time over baseline + SCF by inter-dim policy (DP-heavy executions)'
set ylabel 'iteration time / baseline'
set yrange [0:1.25]
set style fill solid 0.85 border -1
set boxwidth 0.19
set xtics scale 0 font ',9'
set bmargin 4
set key top right horizontal
set datafile columnheaders
hdr = 'NR == 1 { for (i = 1; i <= NF; i++) k[$i] = i; next } '
# The baseline's iteration time of row r's workload and system.
base(w, s) = real(system(sprintf("awk -F, '%s$k[\"workload\"] == \"%s\" && $k[\"system\"] == \"%s\" && $k[\"policy\"] == \"baseline\" { print $k[\"iteration_us\"]; exit }' '%s'", hdr, w, s, csv)))
rel(p) = column('iteration_us') / base(strcol('workload'), strcol('system'))
lbl = '%.2f'
plot where('policy=baseline') using ($0 - 0.3):(rel(0)):xtic(strcol('workload')."\n".strcol('system')) \
         with boxes lc rgb c_base title 'baseline', \
     where('policy=themis') using ($0 - 0.1):(rel(0)) with boxes lc rgb c_fifo title 'Themis', \
     where('policy=lp') using ($0 + 0.1):(rel(0)) with boxes lc rgb c_scf title 'lp', \
     where('policy=ideal') using ($0 + 0.3):(rel(0)) with boxes lc rgb c_ideal title 'ideal network', \
     where('policy=themis') using ($0 - 0.1):(rel(0)):(sprintf(lbl, rel(0))) \
         with labels offset 0, 0.6 font ',8' notitle, \
     where('policy=ideal') using ($0 + 0.3):(rel(0)):(sprintf(lbl, rel(0))) \
         with labels offset 0, 0.6 font ',8' notitle
