/* The shared frame of the hostile_parent_* plugins: sectl_minimal, whole and
 * correct, whose create_stream_executor first commits one hostile act
 * against the process that started it (sectl), once per process, and then
 * goes on as the minimal plugin would. Each plugin's file defines the act.
 *
 * What each attempt achieved goes, one line per attempt, to the file named
 * by SECTL_HOSTILE_LOG (passed with --pass-env) when it is set, for the test
 * to read: "ACT: refused (ERRNO)" or "ACT: SUCCEEDED ...". */
#pragma once

#include <sys/types.h>

/* Commits the plugin's act. */
void HostileAct(void);

/* Appends one line, printf-style, to the file named by SECTL_HOSTILE_LOG. */
void HostileLog(const char* format, ...) __attribute__((format(printf, 1, 2)));

/* Logs ACT as refused (with errno's name) when RESULT is negative, as
 * "SUCCEEDED" otherwise. Returns RESULT. */
long HostileOutcome(const char* act, long result);
