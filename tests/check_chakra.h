/* What the Chakra tests share to write traces of their own: one length-delimited protobuf
 * message (a varint length, then the message), as the format's files hold them. */
#ifndef CHECK_CHAKRA_H
#define CHECK_CHAKRA_H

#include <stdio.h>

#include <protobuf-c/protobuf-c.h>

void test_put_msg(FILE *f, const ProtobufCMessage *m);

#endif
