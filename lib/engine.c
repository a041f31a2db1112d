/* engine.c — STUB, being written. */
#include "engine.h"
