// SPDX-License-Identifier: GPL-2.0
/*
 * hixl_params.cpp - the HIXL backend's parameters (nixl_b_params_t): their
 * defaults, and their mapping to hixl's engine options (<hixl/hixl.h>,
 * hixl_engine_init()).  docs/nixl.md lists them.
 */
#include <cerrno>
#include <climits>
#include <cstdlib>

#include <hixl/hixl.h>

#include "hixl_backend.h"
#include "hixl_devices.h"

namespace {

/* a NIXL parameter passed through to a hixl engine option, "" = hixl's default */
struct passParam {
	const char *param;
	const char *option;
};

const passParam passParams[] = {
	{"buffer_pool", HIXL_OPTION_BUFFER_POOL},
	{"transport", HIXL_OPTION_TRANSPORT},
	{"rails", HIXL_OPTION_RAILS},
	{"allowed_peers", HIXL_OPTION_ALLOWED_PEERS},
	{"auth_secret_file", HIXL_OPTION_AUTH_SECRET_FILE},
	{"traffic_class", HIXL_OPTION_RDMA_TRAFFIC_CLASS},
	{"service_level", HIXL_OPTION_RDMA_SERVICE_LEVEL},
	{"auto_connect", HIXL_OPTION_AUTO_CONNECT},
};

/* a positive decimal int of ms, or false */
bool parseMs(const std::string &s, int &out)
{
	char *end;
	long v;

	if (s.empty() || s[0] < '0' || s[0] > '9')
		return false;
	errno = 0;
	v = strtol(s.c_str(), &end, 10);
	if (errno || *end || v <= 0 || v > INT_MAX)
		return false;
	out = (int)v;
	return true;
}

} // namespace

nixl_b_params_t hixlNixlDefaultParams()
{
	/*
	 * The fast path: an engine on the first local address an RDMA
	 * device owns, hixl's own defaults for the pool, rails, transport
	 * ("auto": the kernel copy to same-host peers) and QoS, AutoConnect
	 * on (NIXL connects lazily, and hixl's revoking cancel needs it).
	 */
	return {
		{"engine", "auto"},
		{"device_list", ""},
		{"buffer_pool", ""},
		{"transport", "auto"},
		{"rails", ""},
		{"allowed_peers", ""},
		{"auth_secret_file", ""},
		{"traffic_class", ""},
		{"service_level", ""},
		{"auto_connect", "1"},
		{"xfer_timeout_ms", "30000"},
		{"connect_timeout_ms", "5000"},
		{"notif_timeout_ms", "1000"},
	};
}

bool hixlNixlParseParams(const nixl_b_params_t &params, hixlNixlConfig &cfg, std::string &err)
{
	nixl_b_params_t p = hixlNixlDefaultParams();
	const nixl_b_params_t defaults = p;

	for (const auto &kv : params) {
		/*
		 * NIXL's generic backend tests (test/gtest/test_transfer.cpp) pass
		 * every backend "engine_config", UCX's string of UCX settings: an
		 * empty one means nothing to HIXL; HIXL's options are the
		 * parameters of this table, so a non-empty one is an error.
		 */
		if (kv.first == "engine_config") {
			if (kv.second.empty())
				continue;
			err = "parameter 'engine_config': '" + kv.second + "': the HIXL backend takes its "
			      "options as separate parameters (getPluginParams lists them), not as one string";
			return false;
		}
		if (!defaults.count(kv.first)) {
			std::string known;

			for (const auto &d : defaults)
				known += (known.empty() ? "" : ", ") + d.first;
			err = "unknown parameter '" + kv.first + "' (the HIXL backend takes: " + known + ")";
			return false;
		}
		p[kv.first] = kv.second;
	}

	cfg.engine = p["engine"];
	if (cfg.engine.empty())
		cfg.engine = "auto";
	if (cfg.engine != "auto") {
		struct hixl_sockaddr a;

		if (hixl_parse_engine_name(cfg.engine.c_str(), &a)) {
			err = "parameter 'engine': '" + cfg.engine + "' is not \"auto\" or a hixl engine "
			      "name (\"a.b.c.d[:port]\", \"[ipv6][:port]\")";
			return false;
		}
	}

	/* the NICs: the parameter, else HIXL_NET_DEVICES (as UCX's UCX_NET_DEVICES) */
	std::string dl = p["device_list"];
	const char *env = getenv("HIXL_NET_DEVICES");

	cfg.devicesFrom = "parameter 'device_list'";
	if (dl.empty() && env && *env) {
		dl = env;
		cfg.devicesFrom = "HIXL_NET_DEVICES";
	}
	if (!hixlDevParse(dl, cfg.devices, err)) {
		err = cfg.devicesFrom + ": " + err;
		return false;
	}
	if (!cfg.devices.empty() && !p["rails"].empty()) {
		err = "parameter 'rails' and " + cfg.devicesFrom + " both choose the engine's rails: "
		      "give one of them";
		return false;
	}

	const struct {
		const char *param;
		int *out;
	} ms[] = {
		{"xfer_timeout_ms", &cfg.xferTimeoutMs},
		{"connect_timeout_ms", &cfg.connectTimeoutMs},
		{"notif_timeout_ms", &cfg.notifTimeoutMs},
	};
	for (const auto &m : ms) {
		if (!parseMs(p[m.param], *m.out)) {
			err = std::string("parameter '") + m.param + "': '" + p[m.param] +
			      "' is not a positive number of milliseconds";
			return false;
		}
	}

	for (const auto &pp : passParams) {
		const std::string &v = p[pp.param];

		if (v.empty())
			continue;
		cfg.opts.emplace_back(pp.option, v);
		cfg.optParams.emplace_back(pp.param);
	}
	return true;
}
