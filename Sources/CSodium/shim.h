#ifndef POLICY_ENGINE_CSODIUM_SHIM_H
#define POLICY_ENGINE_CSODIUM_SHIM_H
#include <sodium.h>
#endif
