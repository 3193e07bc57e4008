/* lib/crc32: the CRC-32 of IEEE 802.3 (as zlib's crc32), for checksummed
 * console output. */
#ifndef LIB_CRC32_H
#define LIB_CRC32_H

#include <stddef.h>
#include <stdint.h>

/*
 * Continues crc over len more bytes: crc32_ieee(0, all, n) equals
 * crc32_ieee(crc32_ieee(0, head, k), tail, n - k). crc32_ieee(0,
 * "123456789", 9) is 0xcbf43926, the algorithm's check value.
 */
uint32_t crc32_ieee(uint32_t crc, const void *data, size_t len);

#endif
