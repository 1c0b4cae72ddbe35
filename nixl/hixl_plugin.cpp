// SPDX-License-Identifier: GPL-2.0
/*
 * hixl_plugin.cpp - the entry points NIXL's plugin manager looks up in
 * libplugin_HIXL.so (src/api/cpp/backend/backend_plugin.h, NIXL 1.4.0):
 * nixl_plugin_init() returns the plugin's description, made by NIXL's own
 * nixlBackendPluginCreator as its UCX, POSIX and Mooncake plugins do.
 */
#include <hixl/hixl.h>

#include "backend/backend_plugin.h"
#include "hixl_backend.h"

#define HIXL_NIXL_STR2(x)	#x
#define HIXL_NIXL_STR(x)	HIXL_NIXL_STR2(x)

/*
 * nixl_plugin_init() - the HIXL backend plugin
 *
 * Return: the plugin (API version NIXL_PLUGIN_API_VERSION, name "HIXL", the
 * version of the hixl headers it was built with, the parameters of
 * hixlNixlDefaultParams(), memory DRAM_SEG and VRAM_SEG); static, never NULL.
 */
extern "C" NIXL_PLUGIN_EXPORT nixlBackendPlugin *nixl_plugin_init()
{
	return nixlBackendPluginCreator<nixlHixlEngine>::create(
		NIXL_PLUGIN_API_VERSION, "HIXL",
		HIXL_NIXL_STR(HIXL_VERSION_MAJOR) "." HIXL_NIXL_STR(HIXL_VERSION_MINOR) "."
		HIXL_NIXL_STR(HIXL_VERSION_PATCH),
		hixlNixlDefaultParams(), {DRAM_SEG, VRAM_SEG});
}

/* nixl_plugin_fini() - nothing to undo: engines are destroyed by NIXL first */
extern "C" NIXL_PLUGIN_EXPORT void nixl_plugin_fini()
{
}
