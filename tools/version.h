/* SPDX-License-Identifier: GPL-2.0 */
/* warden's version, one copy for `warden version` and wardend's status. */
#ifndef WD_VERSION_H
#define WD_VERSION_H

#define WARDEN_VERSION "0.1.0"

#endif
