/* view.h - what the window hands a view, and what a view hands back.
 *
 * Each frame the window builds a Scene: a read-only snapshot of what to show
 * (the model, the trace and its version, the stage position, head, sentence
 * of the batch, selection, look, language, the fonts and the renderer; the
 * input as the session read it: each sentence's text, ids and token spans,
 * the targets, the greedy translation, unknown words, the input error and
 * the experiment). A
 * view draws into ctx->area through the renderer layer (never SDL), reads
 * the mouse from ctx->in, keeps what it remembers between frames in its own
 * state (ctx->st, owned by the window), and writes its wishes into a ViewOut
 * (hover, selection, go to a stage, set the head, use a model, a notice, a
 * wake-up time...), which the window applies when the view is done; its
 * buttons, drags and text fields work on the widget context (ctx->ui).
 * VIEWS[] is the table of views: name, label, draw, actions,
 * state and what the view needs computed. The widgets that work on a view's
 * context and its wishes are declared here too (view_widgets.c); the look
 * and the widgets with ids are ui.h's. */
#ifndef APP_VIEW_H
#define APP_VIEW_H

#include <stddef.h>
#include <stdint.h>

#include "experiment.h"
#include "input.h"
#include "model.h"
#include "ui.h"
#include "walk.h"

/* What a view may be shown of the input (the window checks that they are
 * the session's SES_MAX_SENT, SES_TEXT_MAX and SES_CAP_T). */
#define VIEW_MAX_SENT 4    /* sentences in the padded batch */
#define VIEW_TEXT_MAX 1024 /* bytes of one input line or text field */
#define VIEW_CAP_T 128     /* longest sequence shown */

/* How much of the pass a view needs before it draws: the current stage,
 * the current stage in every layer of its stack, or everything (the output
 * view); or everything paced, a piece per frame or idle call, while the
 * view shows how far it has got (decode) or does not read it (train). The
 * window maps it to the session's SesNeed. */
typedef enum ViewNeed { VIEW_NEED_STAGE, VIEW_NEED_STACK, VIEW_NEED_ALL, VIEW_NEED_PACED } ViewNeed;

typedef enum ViewId {
    VIEW_AUTO = 0, /* the natural view of the current stage */
    VIEW_MATRIX,   /* heatmap with labels and a colour bar */
    VIEW_HEADS,    /* all layers x heads thumbnails */
    VIEW_LINES,    /* attention as lines between two token columns */
    VIEW_MASK,     /* mask matrices with legend, batch selectable */
    VIEW_PE,       /* positional encoding waves, heatmap, rotation */
    VIEW_NORM,     /* Add & Norm before/after statistics */
    VIEW_FFN,      /* FFN hidden activations, ReLU zeros */
    VIEW_OUTPUT,   /* top-k output probabilities per position */
    VIEW_DECODE,   /* teacher forcing beside autoregressive decoding */
    VIEW_TRAIN,    /* live training */
    VIEW_COST,     /* what a layer costs against n, measured (view_cost.c) */
    VIEW_SCALE,    /* q·k histograms: why the scores are divided by √d_k */
    VIEW_HISTORY,  /* the RNN bottleneck and additive attention (lessons only) */
    VIEW_LENS,     /* the logit lens: each decoder layer's top tokens (lab/view_lens.c) */
    VIEW_QKMAP,    /* one head's queries and keys in one plane (lab/view_qkmap.c) */
    VIEW_SIDE,     /* the normal pass beside the experiment's, one colour scale (lessons) */
    VIEW_COUNT
} ViewId;


/* Where the keyboard's cell could go in the frame drawn: the matrix's
 * rows and columns, and the matrices [thumb_lo, thumb_lo + thumbs) of a
 * grid (thumbs 0: one matrix). A view that reads the cell sets it
 * (view_key_cell); the window keeps the cell inside it. rows 0: the view
 * has no keyboard cell. */
typedef struct CursorRoom {
    int rows, cols, thumb_lo, thumbs;
} CursorRoom;

/* The keyboard's cell in a matrix view: Ctrl+arrows move it, and the view
 * reads it out as it reads the cell under the mouse (the mouse over the
 * grid wins). Row and column from 0; clamped to the matrix shown. thumb:
 * in a view of several matrices (the all-heads grid: layer x heads +
 * head) the one it is in; Ctrl+PgUp / PgDn move it. */
typedef struct CellCursor {
    int on, row, col, thumb;
    CursorRoom room; /* the window's: where it could go in the last frame */
} CellCursor;

/* A token the learner clicked, followed across views. */
typedef struct Selection {
    int side; /* 0 none, 1 source, 2 target */
    int index;
} Selection;

/* What the mouse is over: filled by the view while drawing, shown by the
 * status line and the "how it was computed" box. */
typedef struct Hover {
    int valid;
    StageId stage;
    int layer, head, b, row, col;
    float value;
    char where[640]; /* e.g. "row 1 'love', col 2 'china'" */
    int own;         /* a value of the view itself, not of the trace: no
                        "how it was computed" box */
} Hover;

typedef struct HeatGeo {
    int valid;
    Rect grid;        /* the whole matrix on screen (may exceed the view) */
    float cw, ch;     /* cell size */
    int rows, cols;
    float lo, hi;     /* value range of the colour scale */
    CmapId cmap;
    StageId stage;
} HeatGeo;

/* Pan and zoom of a big matrix: screen = T * cell space (cglm affine2d). */
typedef struct PanZoom {
    float zoom;   /* 1 = fit */
    float ox, oy; /* offset of the content, pixels */
} PanZoom;


/* What a view wants measured beyond the pass before it draws (ViewDef.wants;
 * the window measures it and hands it over in the Scene). */
enum {
    VIEW_WANT_HEADS = 1, /* what every head of the pass does (Scene.heads) */
    VIEW_WANT_COST = 2,  /* a layer's cost against n on this machine (Scene.cost) */
    VIEW_WANT_DOTS = 4,  /* q·k of random vectors (Scene.dots) */
    VIEW_WANT_IMPORTANCE = 8, /* head importance, measured paced when asked (Scene.imp) */
    VIEW_WANT_LENS = 16, /* every decoder layer's lens (Scene.lens) */
    VIEW_WANT_QK = 32,   /* the shown head's query/key map (Scene.qk) */
};

/* How much each head matters (the heads lab's importance, importance.h):
 * [i] for head i in the engine's order (enc layers, dec, cross; each
 * layer's heads), over the pairs done so far. */
typedef struct SceneImportance {
    int state;                  /* 0 not asked, 1 measuring, 2 done, 3 failed */
    int done, total;            /* pairs */
    const char *what;           /* the data: "en2zh · 500" */
    const char *error;          /* state 3: why */
    int n;                      /* heads (0 until the first pair is done) */
    const double *delta_nll, *delta_acc;
} SceneImportance;

/* The logit lens of the sentence shown: per decoder layer and position the
 * k most probable tokens and the reference token's rank (heads_lab.h). */
typedef struct SceneLens {
    int layers, T, k;
    const int *ids;             /* (layers, T, k) */
    const float *p;             /* (layers, T, k) */
    const int *ref_id;          /* (T) */
    const int *ref_rank;        /* (layers, T) from 1 */
    const float *ref_p;         /* (layers, T) */
} SceneLens;

/* One sentence's points in a SceneQk: its queries q0.. q0+nq-1, keys
 * k0.. k0+nk-1, and its weights (nq x nk) at w + wofs. */
typedef struct SceneQkSent {
    int q0, nq, k0, nk;
    size_t wofs;
    const char *text;           /* a data set's pair "source → reference"; NULL: the one shown */
} SceneQkSent;

/* The shown head's queries and keys in one plane (qkmap.h): the
 * sentence's, or the sentence's first and then a data set's pairs'. */
typedef struct SceneQk {
    int kind, layer, head;      /* TfAttnKind */
    int nq, nk;
    const double *q, *k;        /* (nq, 2), (nk, 2) */
    const int *qpos, *kpos;     /* positions in their sentences */
    const int *qtok, *ktok;     /* token ids (queries: target side unless enc) */
    const float *w;             /* every sentence's weights (SceneQkSent.wofs) */
    double explained[2];
    int n_sent;                 /* 1: the sentence shown; more: then the data set's pairs */
    const SceneQkSent *sent;    /* (n_sent) */
    const int *qsent, *ksent;   /* (nq), (nk) each point's sentence (0: the one shown) */
} SceneQk;

/* The Q/K map over a data set, as asked and gathered. */
typedef struct SceneQkData {
    int on;                     /* asked for */
    int state;                  /* 0 none, 1 gathering, 2 done, 3 failed */
    int done, total;            /* pairs */
    const char *what;           /* "en2zh · 500" */
    const char *error;          /* state 3: why */
} SceneQkData;

/* What one head does, in numbers (headstats.h's metrics, measured by the
 * window over the shown pass, real rows and keys only). */
typedef struct SceneHead {
    int rows;                   /* query rows measured (0: none) */
    double entropy;             /* mean over rows of -sum_j w ln w, nats */
    double max_weight;          /* mean over rows of max_j w */
    int offset;                 /* most common argmax_j - i */
    double offset_share;        /* share of rows whose argmax is at that offset */
    double first_share;         /* mean weight on key 0 */
    double monotonic;           /* share of rows whose argmax >= the previous row's */
    const char *label;          /* where one number is clear ("sink", "previous
                                   token", ...: English, for _()), else "" */
} SceneHead;

#define VIEW_MAX_HEADS_SHOWN 1024 /* layers x heads of one attention measured */

/* One layer's cost against n: the figures of the lengths measured so far
 * (at most VIEW_COST_MAX lengths). */
#define VIEW_COST_MAX 8
typedef struct SceneCost {
    int C, NH, F;               /* the shape measured (d_model, h, d_ff) */
    int n;                      /* lengths in all (ns[0..n)) */
    int done;                   /* ... measured so far */
    int failed;                 /* no memory to measure */
    const int *ns;
    const double *attn_s, *ffn_s; /* seconds per layer */
    const double *attn_b, *ffn_b; /* bytes the trace records */
} SceneCost;

/* One sentence of the batch as the session read it. */
typedef struct SceneSent {
    const char *text;           /* as typed (the source line split at '|') */
    const int *ids;             /* its source ids, n of them */
    int n;
    const TokSpan *spans;       /* where each id's token is in text (n; for MarianMT
                                   each piece without its ▁, {0, 0} for </s> and a
                                   piece sentencepiece normalised) */
    const int *tgt_ids;         /* the decoder's input: <bos> + target, tgt_n ids */
    int tgt_n;
} SceneSent;

/* The read-only snapshot a view draws from (built by the window). */
typedef struct Scene {
    const TfModel *model;
    const TfTrace *trace;
    uint64_t version;           /* of the trace: bumps whenever it changes */
    const TfTrace *exp_trace;   /* the pass under the experiment (trace, unless trace
                                   is base in compare mode) */
    const TfTrace *base;        /* with an experiment on: the normal pass, else NULL */
    const TfExperiment *exp;    /* the experiment (none: all zero) */
    int cmp;                    /* 0 the experiment, 1 the normal pass (trace is
                                   base), 2 the difference trace - base */
    StagePos pos;               /* stage and layer */
    int head;                   /* -1 all heads */
    int batch, n_src;           /* sentence shown, sentences in the batch */
    SceneSent sent[VIEW_MAX_SENT]; /* the n_src sentences */
    int tgt_auto;               /* sentence 0's target is the greedy translation, not typed */
    const char *translation;    /* sentence 0's greedy translation ("" not yet) */
    const int *greedy_ids;      /* ... as ids, greedy_n of them (up to <eos>) */
    int greedy_n;
    int n_unk;                  /* unknown words in the input */
    const char *input_error;    /* why the input could not run, or "" */
    int paced;                  /* the window: the pass runs in pieces between frames
                                   (headless: all at once) */
    float ln_eps;               /* the ε LayerNorm adds to the variance (the engine's) */
    const float *pe;            /* (pe_rows, d_model) the model's own positional table
                                   (the trace's grows with the input and may be shorter) */
    int pe_rows;                /* min(max_len, VIEW_CAP_T) */
    /* what the view wanted measured (ViewDef.wants), else NULL / zero */
    const SceneHead *heads[3];  /* per attention kind (TfAttnKind): [layer * n_heads + head]
                                   of sentence batch of trace */
    SceneCost cost;
    const float *dots[2];       /* q·k of dots_n random pairs at d_k dots_dk[i] */
    int dots_dk[2], dots_n;
    SceneImportance imp;        /* VIEW_WANT_IMPORTANCE */
    const SceneLens *lens;      /* VIEW_WANT_LENS, or NULL */
    const SceneQk *qk;          /* VIEW_WANT_QK, or NULL (qk_error says why) */
    const char *qk_error;
    SceneQkData qkd;            /* VIEW_WANT_QK: the map over a data set */
    int rollout;                /* R: the heatmap and lines views show attention rollout */
    const float *roll;          /* ... of the shown layer (roll_rows x roll_cols), or NULL */
    int roll_rows, roll_cols;
    int roll_cross;             /* 1 dec.cross.rollout, 0 enc.rollout */
    ViewId view;                /* the view drawn (resolved, never VIEW_AUTO) */
    Selection sel;
    CellCursor cursor;          /* the keyboard's cell (Ctrl+arrows) */
    ThemeId theme;
    float text_scale;
    CmapId cmap_prob, cmap_signed;
    int lang;                   /* 0 English, 1 Simplified Chinese */
    double now;                 /* seconds */
    const char *tab_keys;       /* the keys of the view's tab and what they do
                                   (the window's command table), translated */
    const struct TrainShow *train; /* the train view's run and probe (view_train.h) */
    Ren *r;
    Gfx *g;
    const Theme *th;
    const struct DecShow *dec;  /* the decode lab's results (view_decode.h), or NULL */
} Scene;

/* What a view wishes; the window applies it when the view is done. */
typedef struct ViewOut {
    Hover hover;                /* what the mouse is over (valid 0: nothing) */
    CursorRoom cursor_room;     /* the matrix the keyboard's cell was in */
    HeatGeo heat;               /* the main heatmap drawn (tests, tools) */
    double wake_at;             /* a frame wanted at this time; 0 none */
    int sel_set;                /* change the selection to sel */
    Selection sel;
    int batch_set;              /* show sentence `batch` of the batch */
    int batch;
    TfModel *use_model;         /* adopt this model: the window moves it out of
                                   the view's state (and frees it on failure) */
    char use_label[128];
    const char *set_src, *set_tgt; /* new input lines (with use_model) */
    int recompute;              /* recompute the trace now (after the above) */
    int cmap_prob_set;          /* change the colour map of probabilities */
    CmapId cmap_prob;
    int go_set;                 /* go to stage go_stage, layer go_layer */
    StageId go_stage;
    int go_layer;
    int exp_head_set;           /* toggle ablating head exp_head (kind, layer, head) */
    int exp_head[3];
    int exp_hide_set;           /* toggle hiding source position exp_hide (Alt+click) */
    int exp_hide;
    const TfExperiment *set_exp; /* replace the experiment (a lesson step's); quiet:
                                    the notice below, if any, says why */
    int head_set;               /* set the head (-1 all) */
    int head;
    int view_set;               /* show view (VIEW_AUTO: the natural one) */
    ViewId view;
    int imp_start;              /* measure head importance: on imp_file, or the model's data when "" */
    char imp_file[512];
    int qkd_set;                /* the Q/K map over a data set (qkd_on: on qkd_file, or the
                                   model's data when ""), or (qkd_on 0) the sentence alone */
    int qkd_on;
    char qkd_file[512];
    int notice_set;
    int notice_error;
    char notice[512];
} ViewOut;

typedef struct ViewCtx {
    const Scene *s;
    ViewOut *out;
    void *st;             /* the view's own state (ViewDef.state_size bytes) */
    PanZoom *pz;          /* pan/zoom per view, indexed by ViewId */
    UiCtx *ui;            /* the widget context: hot, active (drags), focus (text
                             fields), ui.h says how a view takes them */
    Ren *r;
    Gfx *g;
    const Theme *th;
    Rect area;
    const UiInput *in;    /* the mouse: &ui->in */
    float anim;           /* 0..1 easing after a stage change */
} ViewCtx;

/* What a command of a tab asks of its view. The keys are bound in the
 * window's command table (app/window/cmd_table.c), which also gives their
 * help; a view only does the action. arg: a direction (-1, +1) or a head. */
typedef enum ViewAct {
    VA_STEP,    /* one step: the next token (decode), a training step */
    VA_PLAY,    /* play / pause */
    VA_RESTART, /* decode: from <bos> again; train: a new run */
    VA_MOVE,    /* the token / snapshot before (-1) or after (+1) */
    VA_FIRST,
    VA_LAST,
    VA_LAYER,   /* the layer before / after */
    VA_HEAD,    /* head arg (from 0), -1 all */
    VA_PANE,    /* the pane (decode), the attention shown (train): -1, +1 */
    VA_BEAM,    /* decode: one beam more (+1) or fewer (-1) */
    VA_ALPHA,   /* decode: the next length penalty */
    VA_UNFORCE, /* decode: take the forced tokens back */
    VA_TEMP,    /* decode, Sampling pane: temperature up (+1) or down (-1) */
    VA_TOP_K,
    VA_TOP_P,
    VA_DRAW,    /* decode, Sampling pane: draw one sample */
    VA_SAVE,    /* train: save the model */
    VA_OPEN,    /* train: open the model in the Decode tab */
    VA_TASK,    /* train: the task before / after */
    VA_SIZE,    /* train: the next size */
    VA_FIELD,   /* train: the setting before / after */
    VA_VALUE,   /* train: the setting's value down / up */
    VA_FILE,    /* train: type a file's path */
    VA_SWAP,    /* train, small window: curves or attention */
    VA_ENTROPY, /* train: head entropy or tokens/s */
    VA_CMAP,    /* train: the colour map of its heatmaps */
    VA_METRICS, /* heads: the metrics over each head */
    VA_SORT,    /* heads: the next order of the heads */
    VA_TABLE,   /* heads: the Heads table shown / hidden */
} ViewAct;

/* One entry per view. */
typedef struct ViewDef {
    const char *name;     /* "matrix", used by --view and lessons */
    const char *label;    /* the tab's label (English; L() translates) */
    void (*draw)(ViewCtx *v);
    int (*act)(ViewCtx *v, ViewAct act, int arg); /* a tab's command: 1 when done; may be NULL */
    size_t state_size;    /* bytes of the view's state, 0 none */
    void (*free)(void *st); /* release what the state holds; may be NULL */
    ViewNeed need;        /* what of the pass the view shows */
    unsigned wants;       /* VIEW_WANT_*: what it shows measured beyond the pass */
} ViewDef;
extern const ViewDef *const VIEWS[VIEW_COUNT]; /* VIEW_AUTO: NULL */

/* Wishes, written into v->out. */
void view_notice(ViewCtx *v, int error, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void view_select(ViewCtx *v, int side, int index);
/* Select (side, index), or clear the selection when it is already that. */
void view_toggle_select(ViewCtx *v, int side, int index);
void view_set_head(ViewCtx *v, int head);
void view_set_batch(ViewCtx *v, int b);
void view_goto(ViewCtx *v, StageId st, int layer);
void view_show(ViewCtx *v, ViewId view);

/* ---- widgets on a view's context (view_widgets.c) ---- */
/* The widest label along an axis of a view (rows 0, columns 1). */
int ui_label_width(const Scene *sc, const TfView *tv, int axis, RenFont *f);
/* tf_view_label and vocab_token as drawn: sentencepiece's ▁ as the thin
 * word-start mark (ui_token). */
const char *view_tok_label(const TfTrace *tr, const TfModel *m, const TfView *tv, int axis, int i, char *buf,
                       size_t cap);
const char *view_token(const Vocab *v, int id, char *buf, size_t cap);
/* Row or column i of a view as the status line names it: "'i' (pos 0)"
 * for a token (positions count from 0, as the tokens view and the
 * positional encoding count them), "dim 3" for a dimension, "'书' (id 17)"
 * for a vocabulary entry (view_index_name: the same from a label kind,
 * index and label). */
const char *view_cell_name(const Scene *sc, const TfView *tv, int axis, int i, char *buf, size_t cap);
const char *view_index_name(LabelKind k, int i, const char *label, char *buf, size_t cap);
/* Report cell (r, c) of a view as what the mouse is over. */
void ui_hover_cell(ViewCtx *v, const TfView *tv, int r, int c);
/* The keyboard's cell (Scene.cursor) in a rows x cols matrix: 1 with *r,
 * *c clamped into it when it is on; it records the matrix as the cell's
 * room (ViewOut.cursor_room) either way, so the window keeps the cell in
 * it. A view asks only when the mouse is not over its matrix (the mouse
 * wins). */
int view_key_cell(ViewCtx *v, int rows, int cols, int *r, int *c);
/* The same in a grid of matrices [lo, lo + n): *thumb, clamped, too. */
int view_key_thumb(ViewCtx *v, int lo, int n, int *thumb);
/* The keyboard's focus drawn round rc: a thick ring in the selection
 * colour with a line of the page's colour inside it, so that it reads
 * by its shape on any cell colour and in every theme (the mouse's hover
 * is a thin line). */
void view_key_outline(ViewCtx *v, Rect rc);
/* Stage `part` of the attention block the scene's stage belongs to, and
 * the layer it is shown for (0 for a stage without layers). */
StageId ui_attn_stage(const Scene *sc, AttnPart part, int *layer);
/* Draw with draw only inside v->area, and nothing when the area is too
 * small to show anything (under 40 x 30). */
void ui_draw_inside(ViewCtx *v, void (*draw)(ViewCtx *v));
/* The key of a view's cached layer (gfx_key): the view's own n words
 * (at most 24) and what every layer depends on, the rectangle it covers,
 * the text size, theme and language. */
uint64_t ui_layer_key(const ViewCtx *v, unsigned tag, Rect at, const uint64_t *w, int n);
/* A colour bar with its numeric range. */
void ui_colorbar(ViewCtx *v, Rect rc, CmapId cmap, float lo, float hi, const char *label);

/* A value a view shows of its own (not a cell of the trace) under the
 * mouse: the status line shows it, with no "how it was computed" box. */
void ui_hover_own(ViewCtx *v, float value, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ---- the views (one ViewDef per view file; VIEWS in view_table.c) ---- */
/* The plain heatmap of the current stage (the matrix view), which other
 * views fall back to. */
void view_matrix(ViewCtx *v);
extern const ViewDef VIEW_MATRIX_DEF, VIEW_HEADS_DEF, VIEW_LINES_DEF, VIEW_MASK_DEF, VIEW_PE_DEF,
    VIEW_NORM_DEF, VIEW_FFN_DEF, VIEW_OUTPUT_DEF, VIEW_DECODE_DEF, VIEW_TRAIN_DEF, VIEW_COST_DEF,
    VIEW_SCALE_DEF, VIEW_HISTORY_DEF, VIEW_LENS_DEF, VIEW_QKMAP_DEF, VIEW_SIDE_DEF;

/* Pure helpers of the views, used by them and tested directly. */
/* R(k·ω_pair) and R·PE(pos) for one sin/cos pair of the table (view_pe_base.c) */
int pe_rotate(const float *pe, int rows, int C, int pair, int pos, int k, float R[2][2],
              float out[2]);
double pe_omega(int pair, int C);
/* The same for the pair whose sine and cosine are columns sc and cc (a
 * MarianMT table in halves: pair, ⌈C/2⌉ + pair). */
int pe_rotate_cols(const float *pe, int rows, int C, int sc, int cc, int pair, int pos, int k,
                   float R[2][2], float out[2]);
void view_pe_choices(const void *pe_state, int *dims, int *pair, int *pos, int *k);
/* The panel a narrow PE view shows ("waves", "table", "rotation", as a
 * lesson's @pane names it): 0, or -1 for another name. */
int view_pe_panel(void *pe_state, const char *name);
/* the four matrices of an Add & Norm step, which is the LN input and output */
int norm_step_views(const TfTrace *tr, StageId st, int layer, int b, TfView *views,
                    int *ln_in, int *ln_out, const float **mean, const float **rstd);
/* exact zeros per row of an FFN hidden view; the last headline drawn */
long ffn_count_zeros(const TfView *tv, int *per_row);
const char *view_ffn_said(const void *ffn_state);
/* The output view's search field (tests type into it) and what it found
 * at position t: the id (-1 none), its rank and probability. */
char *view_output_find_text(void *output_state);
int view_output_found(const void *output_state, int t, int *rank, float *p);
/* The FFN view of a model whose activation is not ReLU (SiLU, GELU:
 * view_ffn_smooth.c); the headline it shows goes in said. */
void view_ffn_smooth(ViewCtx *v, const TfView *tv, char *said, size_t cap);
void ffn_smooth_sentence(char *buf, size_t cap, TfAct a, int neg, int F, float min, const char *tok);

/* A matrix drawn as a heatmap with token labels, pan/zoom and hover, used by
 * the matrix view and reused inside others. */
typedef struct HeatOpts {
    int prob;          /* fixed 0..1 scale */
    int show_values;   /* print values in cells when they are big enough */
    int colorbar;
    int zeros_marked;  /* ReLU zeros get a dot */
    int pz_slot;       /* which PanZoom to use (a ViewId), -1 for none */
    float lo, hi;      /* forced range when lo < hi */
    int diverging;     /* signed data on the diverging map (a difference) */
    const char *caption;
    const char *axes;  /* what the rows and the columns are, a small line above */
    int head_cols;     /* columns per head: a boundary between heads, 0 none */
    int no_keys;       /* the keyboard's cell is in another heatmap of the view */
} HeatOpts;
void heat_draw(ViewCtx *v, const TfView *tv, Rect rc, const HeatOpts *o);
/* "rows: queries (decoder input) · columns: keys (source tokens)": the
 * axis titles of a matrix of stage kind `kind` in buf, or NULL when an
 * axis lists nothing nameable. */
const char *view_axes_text(const TfView *tv, StageKind kind, char *buf, size_t cap);
/* experiment - normal for the cells of tv (tv->rows x tv->cols, malloc'd,
 * the caller frees it), or NULL when the normal pass has no such matrix. */
float *view_diff(const Scene *sc, const TfView *tv, int head);
/* Difference mode: add both values (experiment, normal) of the hovered
 * cell of tv to the hover text. */
void view_diff_hover(ViewCtx *v, const TfView *tv);

#endif
