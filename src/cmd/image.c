/* skiff image: the node's image store from the command line (ls, pull,
 * import, inspect, rm, prune), safe to use while the node's agent runs. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "image/image.h"
#include "util/util.h"

#define DEFAULT_DATA_DIR "/var/lib/skiff"

struct opts {
	const char *data_dir;
	const char *base_name;
	json_t *auths[16];
	size_t n_auths;
	const char *insecure[16];
	size_t n_insecure;
	const char *ca_file, *platform;
	int quiet, json_out, parallel;
};

static const struct option long_opts[] = {
	{"data-dir", required_argument, NULL, 'd'},
	{"creds-file", required_argument, NULL, 'c'},
	{"insecure-registry", required_argument, NULL, 'k'},
	{"ca-file", required_argument, NULL, 'C'},
	{"platform", required_argument, NULL, 'p'},
	{"parallel", required_argument, NULL, 'j'},
	{"name", required_argument, NULL, 'n'},
	{"quiet", no_argument, NULL, 'q'},
	{"json", no_argument, NULL, 'J'},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

static const char *const usages[][2] = {
	{"ls", "ls [--json]\n  Lists stored images: names, id, size."},
	{"pull", "pull REF [--creds-file FILE]... [--insecure-registry HOST]... [--ca-file FILE]\n"
		 "          [--platform OS/ARCH] [--parallel N] [--quiet]\n"
		 "  Pulls REF (tag or @sha256 digest) and unpacks its layers. --creds-file names a\n"
		 "  dockerconfigjson document ({\"auths\":{\"host:port\":{\"auth\":\"base64(user:pass)\"}}})."},
	{"import", "import FILE [--name REPO]\n"
		   "  Imports an OCI image layout archive or a `docker save` archive. OCI entries\n"
		   "  named by a bare tag get REPO:TAG (default: the file name without .tar)."},
	{"inspect", "inspect REF\n  Prints the image record and its config as JSON."},
	{"rm", "rm REF...\n  Removes names (an id removes the image); run prune to free the space."},
	{"prune", "prune\n  Deletes blobs and layer snapshots no image references."},
};

static void usage(FILE *f, const char *sub)
{
	fprintf(f, "Usage: skiff image COMMAND [--data-dir DIR] ...\n\n");
	for (size_t i = 0; i < sizeof(usages) / sizeof(usages[0]); i++)
		if (!sub || !strcmp(sub, usages[i][0]))
			fprintf(f, "skiff image %s\n\n", usages[i][1]);
	fprintf(f, "--data-dir DIR  the node's data directory (default %s); the store is DIR/images.\n",
		DEFAULT_DATA_DIR);
}

static void parse_opts(int argc, char **argv, struct opts *o, const char *sub)
{
	int c;

	o->data_dir = DEFAULT_DATA_DIR;
	optind = 1;
	while ((c = getopt_long(argc, argv, "d:c:k:C:p:j:n:qJh", long_opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			o->data_dir = optarg;
			break;
		case 'c': {
			json_error_t je;
			if (o->n_auths == 16)
				die("too many --creds-file");
			o->auths[o->n_auths] = json_load_file(optarg, 0, &je);
			if (!o->auths[o->n_auths])
				die("creds file \"%s\": %s", optarg, je.text);
			o->n_auths++;
			break;
		}
		case 'k':
			if (o->n_insecure == 16)
				die("too many --insecure-registry");
			o->insecure[o->n_insecure++] = optarg;
			break;
		case 'C':
			o->ca_file = optarg;
			break;
		case 'p':
			o->platform = optarg;
			break;
		case 'j':
			o->parallel = atoi(optarg);
			break;
		case 'n':
			o->base_name = optarg;
			break;
		case 'q':
			o->quiet = 1;
			break;
		case 'J':
			o->json_out = 1;
			break;
		case 'h':
			usage(stdout, sub);
			exit(0);
		default:
			usage(stderr, sub);
			exit(2);
		}
	}
}

static sk_image_store *open_store(const struct opts *o)
{
	sk_error_t err = {0};
	sk_image_store *s = sk_image_store_open(o->data_dir, &err);

	if (!s)
		die("%s", err.msg);
	return s;
}

static void print_json(json_t *j)
{
	char *s = json_dumps(j, JSON_INDENT(2));

	puts(s);
	free(s);
}

static int cmd_ls(sk_image_store *s, struct opts *o)
{
	cleanup_json json_t *list = sk_image_list(s);
	size_t i;
	json_t *img;

	if (o->json_out) {
		print_json(list);
		return 0;
	}
	printf("%-60s %-19s %12s\n", "NAME", "IMAGE ID", "SIZE");
	json_array_foreach(list, i, img) {
		json_t *names = json_object_get(img, "names");
		const char *id = json_string_value(json_object_get(img, "id"));
		const char *first = json_string_value(json_array_get(names, 0));

		printf("%-60s %-19.19s %12lld\n", first ? first : "<none>", id + 7,
		       (long long)json_integer_value(json_object_get(img, "sizeBytes")));
	}
	return 0;
}

/* Called from the pull's threads: a line per finished layer, and at most one
 * progress line a second. */
static void on_progress(void *arg, const char *digest, int64_t done, int64_t total)
{
	static int64_t last;
	int64_t now = sk_mono_ns(), prev = __atomic_load_n(&last, __ATOMIC_RELAXED);

	(void)arg;
	if (done == total) {
		fprintf(stderr, "  %.19s: done (%lld bytes)\n", digest, (long long)total);
	} else if (now - prev > 1000000000 &&
		   __atomic_compare_exchange_n(&last, &prev, now, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
		fprintf(stderr, "  %.19s: %.1f/%.1f MB\n", digest, done / 1e6, total / 1e6);
	}
}

static int cmd_pull(sk_image_store *s, struct opts *o, const char *ref)
{
	sk_pull_options po = {.auths = o->auths,
			      .n_auths = o->n_auths,
			      .insecure = o->insecure,
			      .n_insecure = o->n_insecure,
			      .ca_file = o->ca_file,
			      .platform = o->platform,
			      .parallel = o->parallel,
			      .progress = o->quiet ? NULL : on_progress};
	sk_image_info info;
	sk_error_t err = {0};

	if (!o->quiet)
		fprintf(stderr, "Pulling image \"%s\"\n", ref);
	if (sk_image_pull(s, ref, &po, &info, &err) < 0)
		die("%s", err.msg);
	if (!o->quiet)
		fprintf(stderr,
			"Successfully pulled image \"%s\" in %.3fs (fetch %.3fs, unpack %.3fs). "
			"Image size: %lld bytes. Fetched %lld bytes; %d/%d layers cached.\n",
			ref, info.total_ns / 1e9, info.fetch_ns / 1e9, info.unpack_ns / 1e9, (long long)info.size,
			(long long)info.fetched_bytes, info.blobs_cached, info.layers);
	printf("%s\n", info.image_ref);
	sk_image_info_release(&info);
	return 0;
}

static int cmd_import(sk_image_store *s, struct opts *o, const char *file)
{
	cleanup_json json_t *names = NULL;
	sk_error_t err = {0};
	size_t i;
	json_t *v;

	if (sk_image_import(s, file, o->base_name, &names, &err) < 0)
		die("%s", err.msg);
	json_array_foreach(names, i, v)
		printf("imported %s\n", json_string_value(v));
	return 0;
}

static int cmd_inspect(sk_image_store *s, const char *ref)
{
	sk_image_info info;
	sk_error_t err = {0};
	cleanup_json json_t *config = NULL, *out = NULL;

	if (sk_image_lookup(s, ref, &info, &err) < 0)
		die("%s", err.msg);
	config = sk_image_config(s, ref, &err);
	out = json_pack("{s:s, s:s, s:O, s:O, s:I, s:i, s:O}", "id", info.id, "imageRef", info.image_ref, "repoTags",
			info.repo_tags, "repoDigests", info.repo_digests, "size", (json_int_t)info.size, "layers",
			info.layers, "config", config ? config : json_null());
	print_json(out);
	sk_image_info_release(&info);
	return 0;
}

/* Hidden, for tests: mount a container rootfs from an image and remove it. */
static int cmd_rootfs(sk_image_store *s, const char *what, int argc, char **argv)
{
	sk_error_t err = {0};

	if (!strcmp(what, "rootfs-prepare")) {
		char *p;
		if (argc < 2)
			die("usage: skiff image rootfs-prepare IMAGE CONTAINER_ID");
		p = sk_image_rootfs_prepare(s, argv[0], argv[1], &err);
		if (!p)
			die("%s", err.msg);
		printf("%s\n", p);
		free(p);
		return 0;
	}
	if (argc < 1)
		die("usage: skiff image rootfs-remove CONTAINER_ID");
	if (sk_image_rootfs_remove(s, argv[0], &err) < 0)
		die("%s", err.msg);
	return 0;
}

static int run(sk_image_store *s, struct opts *o, const char *sub, int n, char **args)
{
	sk_error_t err = {0};
	sk_gc_result res = {0};

	if (!strcmp(sub, "ls") || !strcmp(sub, "list"))
		return cmd_ls(s, o);
	if (!strcmp(sub, "prune")) {
		if (sk_image_prune(s, &res, &err) < 0)
			die("%s", err.msg);
		printf("removed %d blobs, %d snapshots, %lld bytes\n", res.blobs_removed, res.snapshots_removed,
		       (long long)res.bytes_freed);
		return 0;
	}
	if (!strcmp(sub, "rootfs-prepare") || !strcmp(sub, "rootfs-remove"))
		return cmd_rootfs(s, sub, n, args);
	if (n < 1) {
		usage(stderr, sub);
		return 2;
	}
	if (!strcmp(sub, "pull"))
		return cmd_pull(s, o, args[0]);
	if (!strcmp(sub, "import"))
		return cmd_import(s, o, args[0]);
	if (!strcmp(sub, "inspect"))
		return cmd_inspect(s, args[0]);
	if (!strcmp(sub, "rm")) {
		for (int i = 0; i < n; i++)
			if (sk_image_remove(s, args[i], &err) < 0)
				die("%s", err.msg);
			else
				printf("removed %s\n", args[i]);
		return 0;
	}
	fprintf(stderr, "skiff image: unknown command \"%s\"\n", sub);
	usage(stderr, NULL);
	return 2;
}

int sk_cmd_image(int argc, char **argv)
{
	struct opts o = {0};
	sk_image_store *s;
	const char *sub;
	int rc;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(argc < 2 ? stderr : stdout, NULL);
		return argc < 2 ? 2 : 0;
	}
	sub = argv[1];
	parse_opts(argc - 1, argv + 1, &o, sub);
	s = open_store(&o);
	rc = run(s, &o, sub, argc - 1 - optind, argv + 1 + optind);
	sk_image_store_free(s);
	for (size_t i = 0; i < o.n_auths; i++)
		json_decref(o.auths[i]);
	return rc;
}
