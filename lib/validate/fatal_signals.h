// The report (and the trace's last records) must survive the crash the
// layer is most needed for. On SIGSEGV, SIGBUS, SIGILL, SIGFPE and SIGABRT
// the layer writes both, then hands the signal to whatever handled it
// before (Python's faulthandler, a sanitizer, the default action). Any
// number of threads may crash at once: the first writes, the others wait
// for it. On SIGTERM, SIGINT and SIGHUP the layer writes the report ending
// "signal SIGTERM" and passes the signal on to the host's handler or the
// default action.
#pragma once

namespace sectl::validate {

// Installs the handlers where they are not the current ones (see the
// definition: called before the vendor loads and after it registers).
void InstallFatalSignalHandlers();

}  // namespace sectl::validate
