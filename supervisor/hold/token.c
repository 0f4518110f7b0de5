// SPDX-License-Identifier: GPL-2.0
/*
 * Hold tokens (supervisor/hold/): an HMAC-SHA256 of what a hold asks, under a key fresh for each
 * supervisor and never written anywhere, so that a decision names the very hold it was shown
 * (an id reused by a later hold does not take an old answer).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include "supervisor/hold/engine_internal.h"
#include "supervisor/hold/token.h"

int hold_token_key(struct wd_hold_engine *e)
{
	return RAND_bytes(e->key, sizeof(e->key)) == 1 ? 0 : -EIO;
}

void hold_token_sign(const struct wd_hold_engine *e, struct hold *h)
{
	unsigned char mac[EVP_MAX_MD_SIZE];
	unsigned int len = 0;
	char msg[PATH_MAX * 2 + 64];
	int n;

	n = snprintf(msg, sizeof(msg), "%llu|%u|%s|%s|%s", (unsigned long long)h->id, h->pid,
		     h->opname, h->target, h->target2 ? h->target2 : "");
	HMAC(EVP_sha256(), e->key, sizeof(e->key), (unsigned char *)msg, (size_t)n, mac, &len);
	for (unsigned int i = 0; i < 16 && i < len; i++)
		snprintf(h->token + 2 * i, 3, "%02x", mac[i]);
}

bool hold_token_matches(const struct hold *h, const char *token)
{
	size_t len = strlen(h->token);

	/* constant time: a wrong token says nothing of how much of it was right */
	return token && strlen(token) == len && CRYPTO_memcmp(token, h->token, len) == 0;
}
