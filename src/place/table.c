/* The strategy table. To add a strategy, write its operations in their
 * own file, declare them in internal.h and add a row here. */
#include "internal.h"

const morph__place_ops *const morph__place_table[] = {
    &morph__firstfit_ops,
    &morph__tofa_ops,
    &morph__greedy_ops,
    &morph__random_ops,
    &morph__box_ops,
};
const int morph__place_count = sizeof(morph__place_table) / sizeof(morph__place_table[0]);
