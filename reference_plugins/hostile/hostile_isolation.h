/* The shared frame of the hostile_isolation_* plugins: sectl_minimal, whole
 * and correct, whose SP_StreamExecutor.allocate first commits one hostile
 * act, once per process, and then goes on as the minimal plugin would. The
 * act is inside a check: sectl's preflight (which learns the device count
 * and creates a stream executor) never allocates, so it reaches the checks.
 * Before the act, the process takes the name in SECTL_HOSTILE_TAG (when
 * passed with --pass-env), so that a test can find what it left running.
 * Each plugin's file defines the act. */
#pragma once

/* Commits the plugin's act. */
void HostileIsolationAct(void);

/* Appends LINE and a newline to the file named by SECTL_HOSTILE_LOG (passed
 * with --pass-env), when it is set, for the test to read. */
void HostileIsolationNote(const char* line);
