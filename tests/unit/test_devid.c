// SPDX-License-Identifier: GPL-2.0
/* supervisor/bpf/devid.c: the mount's s_dev from mountinfo, and both device numbers of a path. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <cmocka.h>

#include "supervisor/bpf/devid.h"

/* btrfs as the kernel shows it: the super block's device, not what stat reports */
static const char mountinfo[] =
	"21 26 0:20 / /proc rw,relatime - proc proc rw\n"
	"bad line\n"
	"26 1 259:3 / / rw,relatime - ext4 /dev/nvme0n1p3 rw\n"
	"43 26 0:38 / /mnt/b rw,relatime - btrfs /dev/loop0 rw,subvolid=5,subvol=/\n"
	"44 26 0:38 /a /mnt/a rw,relatime - btrfs /dev/loop0 rw,subvolid=256,subvol=/a\n"
	"4294967296 26 8:1048575 / /big rw - ext4 /dev/x rw\n";

static int mount_dev(uint64_t id, uint32_t *dev)
{
	FILE *f = fmemopen((void *)mountinfo, sizeof(mountinfo) - 1, "r");
	int err;

	assert_non_null(f);
	err = wd_devid_mount_dev(f, id, dev);
	fclose(f);
	return err;
}

static void test_mount_dev(void **state)
{
	uint32_t dev = 0;

	(void)state;
	assert_int_equal(mount_dev(26, &dev), 0);
	assert_int_equal(dev, 259u << 20 | 3);
	assert_int_equal(mount_dev(44, &dev), 0);
	assert_int_equal(dev, 38);
	/* mount ids and minors past 32 and 8 bits */
	assert_int_equal(mount_dev(4294967296ull, &dev), 0);
	assert_int_equal(dev, 8u << 20 | 1048575);
}

static void test_mount_dev_missing(void **state)
{
	uint32_t dev = 7;

	(void)state;
	assert_int_equal(mount_dev(1, &dev), -ENOENT);
	assert_int_equal(dev, 7);
}

/* a procfs file: stat(2) and the super block agree, and wd_devid_of says so */
static void test_devid_of_procfs(void **state)
{
	struct wd_devid id;
	struct stat st;

	(void)state;
	assert_int_equal(stat("/proc/self/mountinfo", &st), 0);
	assert_int_equal(wd_devid_of("/proc/self/mountinfo", &id), 0);
	assert_int_equal(id.ino, st.st_ino);
	assert_int_equal(id.stat_dev, wd_kdev(major(st.st_dev), minor(st.st_dev)));
	/* procfs's getattr reports its super block's device */
	assert_int_equal(id.sb_dev, id.stat_dev);
}

static void test_devid_of_missing(void **state)
{
	struct wd_devid id;

	(void)state;
	assert_int_equal(wd_devid_of("/nonexistent/wd-devid", &id), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mount_dev),
		cmocka_unit_test(test_mount_dev_missing),
		cmocka_unit_test(test_devid_of_procfs),
		cmocka_unit_test(test_devid_of_missing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
