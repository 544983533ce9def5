/* results.h - what a class answered in the pre- and post-tests (a lesson
 * marked @test): one CSV row per answer, kept in the learner's data folder
 * ($XDG_DATA_HOME/stepformer/results.csv, else ~/.local/share/stepformer)
 * under a random learner id (no name):
 *
 *   learner,test,lesson,question,answer,right,seconds,when
 *   5f0c2a9e1b7d4c33,pre,pretest,masks-1,2,1,14.2,2026-12-02T10:15:00Z
 *
 * `stepformer results --export FILE.csv` writes them out for the teacher;
 * `results --summary FILE.csv...` puts the class's files together and
 * prints each question's share of right answers before and after. */
#ifndef APP_RESULTS_H
#define APP_RESULTS_H

#include <stdio.h>

#include "err.h"

#define RESULTS_ID_LEN 16

/* The folder the results live in (made, with its parents, when make is
 * set). 0, or -1 with err. */
int results_dir(char *buf, size_t cap, int make, TfErr *err);

/* This learner's id: 16 hex digits drawn once from /dev/urandom and kept in
 * learner-id beside the results. 0, or -1 with err. */
int results_learner(char id[RESULTS_ID_LEN + 1], TfErr *err);

/* One answer: test is "pre", "post" or "test"; question an id without
 * commas; answer the choice from 0; seconds the time the question was on
 * screen. Appended (with the header when the file is new). */
int results_record(const char *test, const char *lesson, const char *question, int answer, int right,
                   double seconds, TfErr *err);

/* The results file copied to path (written atomically); *rows gets the
 * answers in it. 0, or -1 with err (no results yet says so). */
int results_export(const char *path, int *rows, TfErr *err);

/* Per question, over all the files: answers and share right in the pre-
 * and in the post-test, and the change, as a table (or CSV) on out. Rows
 * that are not results lines are an error naming file and line. */
int results_summary(FILE *out, char **paths, int n, int csv, TfErr *err);

#endif
