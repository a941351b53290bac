// The hint is inline in the header, for Swift to call without a call; this file makes the
// target one SwiftPM builds.
#include "CPrefetch.h"
