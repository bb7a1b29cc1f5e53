#ifndef SIGHTLINE_CZBAR_SHIM_H
#define SIGHTLINE_CZBAR_SHIM_H
#include <zbar.h>
/// The Y800 fourcc (zbar_fourcc is a macro).
static inline unsigned long sl_zbar_y800(void) { return zbar_fourcc('Y', '8', '0', '0'); }
#endif
