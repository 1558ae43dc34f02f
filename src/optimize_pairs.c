/* The policy pairs `themis optimize` searches for: one policy or every one (lp only where its
 * program applies to the collective, or to every collective of a list). */
#include "themis/bound.h"
#include "themis/collist.h"
#include "themis/optimize.h"

int th_opt_pairs(const th_system *sys, const th_collective *coll, const th_collist *list,
                 int policy, th_intra intra, th_pair *pairs) {
    int lp = 1;
    for (int i = 0; i < (list ? list->n : 1); i++)
        if (!th_bound_supported(sys, (list ? &list->items[i].coll : coll)->dims_mask)) lp = 0;
    int n = 0;
    for (int p = 0; p <= TH_POLICY_LAST_SINGLE; p++) {
        if (policy >= 0 && policy != p) continue;
        if (policy < 0 && p == TH_POLICY_LP && !lp) continue;
        pairs[n++] = (th_pair){(th_policy)p, intra};
    }
    return n;
}
