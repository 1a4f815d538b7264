// The functions of SystemMemory are inline in include/SystemMemory.h; SwiftPM needs one source file.
#include "SystemMemory.h"
