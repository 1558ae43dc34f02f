/* The reference runs of a sweep (baseline+fifo, and the ideal network in workload sweeps),
 * cached for every worker of a run: a point's references depend only on the groups that can
 * change them (not policy, intra or load model), so each distinct key is computed once, by the
 * first worker that needs it, while the others wanting the same key wait for it. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sweep_internal.h"

/* One slot per hash of the key; a slot holds the last key that mapped to it. */
#define REF_SLOTS 256

enum { REF_EMPTY, REF_PENDING, REF_DONE };

typedef struct ref_slot {
    int state; /* REF_EMPTY, REF_PENDING (a worker computes it), REF_DONE */
    sw_ref v;
} ref_slot;

struct sw_refs {
    const th_sweep *sw;
    pthread_mutex_t mu;
    pthread_cond_t cv; /* a pending slot was kept or released */
    int64_t *keys;     /* REF_SLOTS x ngroups: the digits each slot's key was taken from */
    ref_slot *slots;   /* REF_SLOTS */
};

sw_refs *sw_refs_create(const th_sweep *sw) {
    sw_refs *r = calloc(1, sizeof *r);
    size_t n = (size_t)(sw->ngroups ? sw->ngroups : 1);
    if (!r) return NULL;
    r->sw = sw;
    r->keys = calloc(n * REF_SLOTS, sizeof *r->keys);
    r->slots = calloc(REF_SLOTS, sizeof *r->slots);
    if (!r->keys || !r->slots) {
        free(r->keys);
        free(r->slots);
        free(r);
        return NULL;
    }
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->cv, NULL);
    return r;
}

void sw_refs_free(sw_refs *r) {
    if (!r) return;
    pthread_mutex_destroy(&r->mu);
    pthread_cond_destroy(&r->cv);
    free(r->keys);
    free(r->slots);
    free(r);
}

/* The slot of these digits' key. */
static int slot_of(const sw_refs *r, const int64_t *digits) {
    const th_sweep *sw = r->sw;
    uint64_t h = 1469598103934665603u;
    for (int g = 0; g < sw->ngroups; g++)
        if (sw->groups[g].baseline_key) h = (h ^ (uint64_t)digits[g]) * 1099511628211u;
    return (int)((h ^ (h >> 29)) % REF_SLOTS);
}

/* Whether slot i's key is these digits'. */
static int same_key(const sw_refs *r, int i, const int64_t *digits) {
    const th_sweep *sw = r->sw;
    const int64_t *key = r->keys + (size_t)i * (size_t)sw->ngroups;
    for (int g = 0; g < sw->ngroups; g++)
        if (sw->groups[g].baseline_key && key[g] != digits[g]) return 0;
    return 1;
}

static void set_key(sw_refs *r, int i, const int64_t *digits) {
    memcpy(r->keys + (size_t)i * (size_t)r->sw->ngroups, digits,
           sizeof *r->keys * (size_t)r->sw->ngroups);
}

int sw_refs_find(sw_refs *r, const int64_t *digits, sw_ref *out, int *slot) {
    int i = slot_of(r, digits), found = 0;
    pthread_mutex_lock(&r->mu);
    for (;;) {
        ref_slot *s = &r->slots[i];
        if (s->state == REF_PENDING && same_key(r, i, digits)) {
            pthread_cond_wait(&r->cv, &r->mu); /* another worker computes this key */
            continue;
        }
        if (s->state == REF_DONE && same_key(r, i, digits)) {
            *out = s->v;
            found = 1;
        } else if (s->state == REF_PENDING) { /* another key is being computed here */
            *slot = -1;
        } else { /* empty, or another key's: this worker computes this key in it */
            set_key(r, i, digits);
            s->state = REF_PENDING;
            *slot = i;
        }
        break;
    }
    pthread_mutex_unlock(&r->mu);
    return found;
}

void sw_refs_keep(sw_refs *r, int slot, const sw_ref *v) {
    if (slot < 0) return;
    pthread_mutex_lock(&r->mu);
    ref_slot *s = &r->slots[slot];
    if (v) s->v = *v;
    s->state = v ? REF_DONE : REF_EMPTY;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
}

void sw_refs_offer(sw_refs *r, const int64_t *digits, const sw_ref *v) {
    int i = slot_of(r, digits);
    pthread_mutex_lock(&r->mu);
    ref_slot *s = &r->slots[i];
    if (s->state != REF_PENDING) { /* a pending slot is another worker's to fill */
        set_key(r, i, digits);
        s->v = *v;
        s->state = REF_DONE;
    }
    pthread_mutex_unlock(&r->mu);
}
