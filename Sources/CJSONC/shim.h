#ifndef SIGHTLINE_CJSONC_SHIM_H
#define SIGHTLINE_CJSONC_SHIM_H
#include <json-c/json.h>
#endif
