/* fuzz_lesson.c - libFuzzer target for the lesson parser: any byte string
 * must parse or fail with a "file:line: reason" message, never crash, leak
 * or read past the input. A parsed lesson is walked completely, so every
 * string the parser kept is touched (ASan catches a dangling one). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lesson.h"

static size_t touch(const char *s)
{
    return s ? strlen(s) : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* lesson_parse takes a length, not a NUL-terminated string: give it an
     * exact-size copy so ASan sees any read past the end */
    char *text = malloc(size ? size : 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    Lesson *l = malloc(sizeof *l);
    if (!l) {
        free(text);
        return 0;
    }
    TfErr err;
    size_t sum = 0;
    if (lesson_parse(l, text, size, "fuzz/01-fuzz.txt", &err) == 0) {
        sum += touch(l->title) + touch(l->summary);
        for (int i = 0; i < l->n_steps; i++) {
            const LessonStep *s = &l->steps[i];
            sum += touch(s->title) + touch(s->text) + touch(s->try_text) + touch(s->directives);
            sum += touch(s->view.src) + touch(s->view.tgt) + touch(s->view.highlight);
            sum += touch(s->view.stage) + touch(s->view.view);
            if (s->has_quiz) {
                if (s->quiz.answer < 0 || s->quiz.answer >= s->quiz.n_choices)
                    abort(); /* a parsed quiz always has its one answer */
                sum += touch(s->quiz.question) + touch(s->quiz.explain);
                for (int c = 0; c < s->quiz.n_choices; c++)
                    sum += touch(s->quiz.choices[c]);
            }
        }
        lesson_free(l);
    } else {
        /* every error names the file */
        if (strncmp(err.msg, "fuzz/01-fuzz.txt", 16) != 0)
            abort();
        sum += touch(err.msg);
    }
    free(l);
    free(text);
    return sum == (size_t)-1;
}
