/* libFuzzer target for common/proto.c: proto_frame() and every decoder
 * (submit, list/info, cancel, error, submitted, jobs, cancelled, steps,
 * nodemap), with the encoders in the round trip.
 *
 * The input is what a hostile peer sends: a client to the daemon, or a
 * daemon to a client. Its first byte picks how it is used: 0 (as in every
 * real frame) feeds it unchanged, header first; anything else must be
 * refused from the header alone, and then the rest of the input becomes the
 * payload of a well-formed header whose type that byte picks. Every check
 * is in proto_oracle.h (shared with tests/unit/test_proto.c, which replays
 * the seed corpus); a failed one calls abort(), so libFuzzer saves the
 * input. AddressSanitizer, UBSan and LeakSanitizer watch the rest. */
#include <stddef.h>
#include <stdint.h>
#include "proto_oracle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	(void)proto_oracle_input(data, size);
	return 0;
}
