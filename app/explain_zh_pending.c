/* explain_zh_pending.c - until explain_zh.c lands, the panel stays English. */
#include "views.h"

int explain_zh(StageId st, int pre, const char **title, const char **text)
{
    (void)st; (void)pre; (void)title; (void)text;
    return 0;
}
