/* explain_model.h - the explanation panel's model-dependent sentences
 * (explain_model.c): MarianMT's pieces, start token, halves positions,
 * SiLU/GELU, final_logits_bias. */
#ifndef APP_EXPLAIN_MODEL_H
#define APP_EXPLAIN_MODEL_H

#include "app.h"

/* Replace the title, formula and text of stage st where this model does
 * something else than the paper (1), else leave them (0). */
int explain_model(const App *a, StageId st, const char **title, const char **formula, const char **text);
/* How the hovered number was computed, where the model differs (its
 * length), else 0. */
int explain_model_how(const App *a, char *buf, size_t cap);
/* The step strip's and the tabs' names for this model ("SiLU(xW₁+b₁)"). */
const char *explain_step_label(const App *a, StageId st, const char *label);
const char *explain_view_label(const App *a, ViewId v, const char *label);

#endif
