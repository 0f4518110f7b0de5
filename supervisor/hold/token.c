// SPDX-License-Identifier: GPL-2.0
/*
 * Hold tokens (supervisor/hold/): an HMAC-SHA256 of what a hold asks, under a key fresh for each
 * sandbox and never written to a file, so that a decision names the very hold it was shown
 * (a hold id reused by a later hold does not take an old answer). The message is the kernel's
 * id of the notified call (unique for the listener's life, the same for whichever supervisor
 * receives it), the task, the operation and its targets: a successor holding the same key (from
 * the keeper, wd_hold_key_fd) signs a call it asks again exactly as its predecessor did, unless
 * what the call names has changed meanwhile.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

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
	const char *t1 = h->target ? h->target : "", *t2 = h->target2 ? h->target2 : "";
	char msg[PATH_MAX * 2 + 64];
	int n;

	/*
	 * Each path with its length: the sandbox names them, and a rewrite of a held call's
	 * memory before a take-over must not turn rename("a|b", "c") into rename("a", "b|c")
	 * under the same token.
	 */
	n = snprintf(msg, sizeof(msg), "%llu|%u|%s|%zu:%s|%zu:%s", (unsigned long long)h->notif_id,
		     h->pid, h->opname, strlen(t1), t1, strlen(t2), t2);
	/* (decoded paths are at most PATH_MAX: never more than the buffer, and never read past) */
	if (n < 0 || (size_t)n >= sizeof(msg))
		n = n < 0 ? 0 : (int)sizeof(msg) - 1;
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

int wd_hold_key_fd(const struct wd_hold_engine *e)
{
	int fd = memfd_create("warden-hold-key", MFD_CLOEXEC | MFD_ALLOW_SEALING), err;

	if (fd < 0)
		return -errno;
	if (write(fd, e->key, sizeof(e->key)) != (ssize_t)sizeof(e->key) ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE)) {
		err = errno ? -errno : -EIO;
		close(fd);
		return err;
	}
	return fd;
}

int wd_hold_key_load(struct wd_hold_engine *e, int fd)
{
	unsigned char key[sizeof(e->key)];
	int seals = fcntl(fd, F_GET_SEALS);

	/* only a key nobody could have changed since it was written */
	if (seals < 0 || !(seals & F_SEAL_WRITE))
		return seals < 0 ? -errno : -EPERM;
	if (pread(fd, key, sizeof(key), 0) != (ssize_t)sizeof(key))
		return -EINVAL;
	memcpy(e->key, key, sizeof(key));
	OPENSSL_cleanse(key, sizeof(key));
	return 0;
}
