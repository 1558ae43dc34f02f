/* Writing one length-delimited protobuf message for the Chakra tests' own traces. */
#include "check_chakra.h"

#include <stdint.h>
#include <stdlib.h>

#include "check_themis.h"

static void put_varint(FILE *f, uint64_t v) {
    do {
        int b = (int)(v & 0x7f);
        v >>= 7;
        fputc(v ? b | 0x80 : b, f);
    } while (v);
}

void test_put_msg(FILE *f, const ProtobufCMessage *m) {
    size_t n = protobuf_c_message_get_packed_size(m);
    uint8_t *buf = malloc(n ? n : 1);
    ck_assert_ptr_nonnull(buf);
    protobuf_c_message_pack(m, buf);
    put_varint(f, n);
    fwrite(buf, 1, n, f);
    free(buf);
}
