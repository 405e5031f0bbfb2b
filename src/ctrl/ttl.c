#include "ctrl/ctrl-int.h"

int sk__ttl_init(struct sk_ctrl *ctl, sk_error_t *err) { return 0; }
