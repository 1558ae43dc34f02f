/* What the training replay shares with other views of a workload's iteration (the Chakra
 * export): the DDP bucket assignment of its weight gradients. */
#ifndef THEMIS_TRAIN_INTERNAL_H
#define THEMIS_TRAIN_INTERNAL_H

#include "themis/train.h"

/* Per layer of a workload (arrays of nlayers each, the caller's). */
typedef struct th_train_buckets {
    int *carrier;  /* the layer whose weight-gradient collective carries this layer's gradient */
    int *first;    /* per carrier layer: the layer whose gradient opened its bucket */
    int *fused;    /* per carrier layer: gradients in its bucket */
    double *bsize; /* per carrier layer: its bucket's bytes */
} th_train_buckets;

/* PyTorch DDP's bucket assignment of wl's weight gradients on sys (docs/WORKLOADS.md,
 * Buckets) for buckets of `bucket` bytes; 0: none, every layer carries its own gradient. */
int th_train_assign_buckets(const th_workload *wl, const th_system *sys, double bucket,
                            const th_train_buckets *b, th_error *err);

#endif
