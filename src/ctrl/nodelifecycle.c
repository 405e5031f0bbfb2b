#include "ctrl/ctrl-int.h"

int sk__nodelifecycle_init(struct sk_ctrl *ctl, sk_error_t *err) { return 0; }
