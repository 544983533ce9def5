/* expl_stage.h - the words of every stage (expl_stage.c): what the
 * explanation panel says about it and the PyTorch lines of its "code" tab,
 * in one table indexed by StageId, beside core's StageInfo (which holds the
 * stage's name, kind and flags; the words stay here in app/ because they
 * are translated). */
#ifndef APP_EXPL_STAGE_H
#define APP_EXPL_STAGE_H

#include "stage.h"

/* Title and text are marked N_(): translate them with _() where they are
 * drawn. Most formulas are plain Unicode and stay as they are; the few with
 * words are N_() too, so _() of any formula is right. The code is PyTorch
 * and is never translated. A pre-LN model reads the *_pre fields where
 * they are set (NULL: the same as the paper's post-LN). */
typedef struct StageText {
    const char *title;
    const char *formula;
    const char *text;
    const char *code;
    const char *formula_pre, *text_pre, *code_pre;
} StageText;

/* The words of stage st (an entry with empty strings for an id out of
 * range). */
const StageText *expl_stage(StageId st);

/* The views whose panel explains the view rather than the stage: the
 * Decode tab's panes (in DecPane's order), the Train tab, the heads lab's
 * Logit lens and Q/K map, and rollout (R) of self- and of cross-attention.
 * Their entries have no code and no pre-LN variants. */
typedef enum ExplView {
    EXPL_DEC_GEN, EXPL_DEC_STEP, EXPL_DEC_BEAM, EXPL_DEC_SAMPLE,
    EXPL_TRAIN, EXPL_LENS, EXPL_QKMAP, EXPL_ROLLOUT, EXPL_ROLLOUT_CROSS,
    EXPL_VIEW_COUNT
} ExplView;
const StageText *expl_view(ExplView v);

/* The field the model reads: the pre-LN variant when pre and there is one. */
static inline const char *expl_pick(int pre, const char *post_ln, const char *pre_ln)
{
    return pre && pre_ln ? pre_ln : post_ln;
}

#endif
