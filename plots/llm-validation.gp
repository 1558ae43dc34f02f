# Figure: Megatron-LM iteration times on A100 (Korthikanti et al. 2022, Table 5) next to the
# model's, on models/systems/dgx-a100.json with one A100 description (scripts/llm-validate).
# columns: case,published_s,themis_s,error_pct
load plotdir.'/common.gpi'
set title 'Megatron-LM on DGX A100: published iteration time vs themis (one A100 description)'
set ylabel 'iteration time (s, log scale)'
set logscale y
set yrange [0.5:300]
set style fill solid 0.85 border -1
set boxwidth 0.38
set xtics scale 0 rotate by 20 right
set key top left
plot csv using ($0 - 0.2):'published_s':xtic(strcol('case')) with boxes lc rgb c_base title 'published', \
     csv using ($0 + 0.2):'themis_s' with boxes lc rgb c_fifo title 'themis', \
     csv using ($0 + 0.2):'themis_s':(sprintf('%+.1f%%', column('error_pct'))) \
         with labels offset 0, 0.8 font ',9' notitle
