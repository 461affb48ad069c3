#include <stdint.h>
#include <x265.h>
