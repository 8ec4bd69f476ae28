/* The width of the terminal on standard error, for progress lines that fit on one line. */

#include <sys/ioctl.h>
#include <unistd.h>
#include <caml/mlvalues.h>

/* vc_stderr_columns : unit -> int (0 when standard error is not a terminal; 80 for one whose
 * width is not known) */
value vc_stderr_columns(value unit)
{
    struct winsize ws;
    (void)unit;
    if (!isatty(2)) return Val_int(0);
    if (ioctl(2, TIOCGWINSZ, &ws) != 0 || ws.ws_col == 0) return Val_int(80);
    return Val_int(ws.ws_col);
}
