#include "grt/grt.h"

const char* grt_version(void) { return GRT_VERSION_STRING; }
