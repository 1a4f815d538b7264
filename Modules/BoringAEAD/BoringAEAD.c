// The declarations of BoringAEAD are in include/BoringAEAD.h; SwiftPM needs one source file.
#include "BoringAEAD.h"
