/* Subcommands of build/skiff. Each lives in its own small file in src/cmd/,
 * parses its flags and calls the library. die() is allowed only here. */
#ifndef SK_CMD_CMD_H
#define SK_CMD_CMD_H

#include <stdio.h>

struct sk_cmd {
	const char *name;
	const char *summary;
	int (*run)(int argc, char **argv);
};

/* Registered subcommands (src/cmd/main.c holds the table). */
int sk_cmd_version(int argc, char **argv);
int sk_cmd_server(int argc, char **argv);
int sk_cmd_kubectl(int argc, char **argv);
int sk_cmd_image(int argc, char **argv);
int sk_cmd_agent(int argc, char **argv);
int sk_cmd_bench(int argc, char **argv);
int sk_cmd_user(int argc, char **argv);
int sk_cmd_etcd_snapshot(int argc, char **argv);
int sk_cmd_migrate(int argc, char **argv);
int sk_cmd_token(int argc, char **argv);
int sk_cmd_validate(int argc, char **argv);
int sk_cmd_bench_dns(int argc, char **argv); /* skiff bench dns */

/* A command with one verb (`skiff user add`, `skiff token create`): runs
 * run(argc - 1, argv + 1) for argv[1] == verb; --help prints usage to
 * stdout (0); no verb or another one prints it to stderr (2). */
int sk_cmd_verb(const char *cmd, int argc, char **argv, const char *verb, int (*run)(int argc, char **argv),
		void (*usage)(FILE *f));

void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

#endif
