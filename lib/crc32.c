/* lib/crc32: reflected CRC-32, polynomial 0x04c11db7 (reversed 0xedb88320),
 * initial value and final xor all ones (IEEE 802.3, clause 3.2.9). */
#include "crc32.h"

#define CRC32_POLY_REVERSED 0xedb88320u

uint32_t crc32_ieee(uint32_t crc, const void *data, size_t len)
{
	const uint8_t *p = data;
	/* Bit by bit, no table: the dump is bounded by the serial line's
	 * speed, not by this loop, and a table would be 1 KiB of .rodata. */
	crc = ~crc;
	for (size_t i = 0; i < len; i++) {
		crc ^= p[i];
		for (int b = 0; b < 8; b++)
			crc = (crc >> 1) ^ (CRC32_POLY_REVERSED & (0u - (crc & 1)));
	}
	return ~crc;
}
