/* Pulls against tests/images/fakeregistry.py (bearer tokens, an index with two
 * platforms, a connection cut in every layer's first download): one pull
 * shared by concurrent callers, resume with Range, metrics, credentials. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <string.h>
#include <sys/wait.h>

#include "image/registry.h"
#include "util/util.h"

static pid_t fake_pid = -1;
static char host[64];
static char images_dir[512];
static char port_file[128];

static int setup(void **state)
{
	FILE *p = popen("tests/images/build.sh 2>/dev/null", "r");
	cleanup_free char *oci = NULL;
	char *port = NULL;

	if (!p || !fgets(images_dir, sizeof(images_dir), p) || pclose(p) != 0)
		return 0;   /* tests skip */
	images_dir[strcspn(images_dir, "\n")] = '\0';
	oci = xasprintf("%s/oci", images_dir);
	snprintf(port_file, sizeof(port_file), "/tmp/skiff-fakereg.%d", (int)getpid());
	fake_pid = fork();
	if (fake_pid == 0) {
		execl("/usr/bin/python3", "python3", "tests/images/fakeregistry.py", oci, port_file, (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 1200 && !(port = sk_read_file(port_file, NULL)); i++)
		usleep(50000);
	if (!port)
		return -1;
	snprintf(host, sizeof(host), "127.0.0.1:%s", port);
	free(port);
	return 0;
}

static int teardown(void **state)
{
	if (fake_pid > 0) {
		kill(fake_pid, SIGTERM);
		waitpid(fake_pid, NULL, 0);
	}
	unlink(port_file);
	return 0;
}

static json_t *fake_stats(void)
{
	cleanup_free char *cmd = xasprintf("/usr/bin/python3 -c 'import urllib.request,sys;"
					   "sys.stdout.write(urllib.request.urlopen(\"http://%s/stats\").read().decode())'", host);
	FILE *p = popen(cmd, "r");
	json_t *j = p ? json_loadf(p, 0, NULL) : NULL;

	if (p)
		pclose(p);
	return j;
}

struct puller {
	sk_image_store *s;
	const char *ref;
	sk_image_info info;
	sk_error_t err;
	int rc;
};

static void *pull_thread(void *arg)
{
	struct puller *p = arg;

	p->rc = sk_image_pull(p->s, p->ref, NULL, &p->info, &p->err);
	return NULL;
}

static void test_singleflight_resume(void **state)
{
	char tmpl[] = "/tmp/skiff-image-pull.XXXXXX";
	cleanup_free char *ref = xasprintf("%s/busybox:2", host);
	cleanup_json json_t *before = NULL, *after = NULL;
	struct puller p[4];
	pthread_t th[4];
	sk_image_store *s;
	int shared = 0;

	if (fake_pid <= 0)
		skip();
	assert_non_null(mkdtemp(tmpl));
	s = sk_image_store_open(tmpl, NULL);
	assert_non_null(s);
	before = fake_stats();
	assert_non_null(before);
	for (int i = 0; i < 4; i++) {
		p[i] = (struct puller){.s = s, .ref = ref};
		pthread_create(&th[i], NULL, pull_thread, &p[i]);
	}
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	after = fake_stats();
	for (int i = 0; i < 4; i++) {
		if (p[i].rc < 0)
			fail_msg("%s", p[i].err.msg);
		shared += p[i].info.shared;
		assert_string_equal(p[i].info.id, p[0].info.id);
	}
	/* callers that arrived while the first pull ran shared it: one index + one manifest each */
	assert_int_equal((json_integer_value(json_object_get(after, "manifests")) -
			  json_integer_value(json_object_get(before, "manifests"))), 2 * (4 - shared));
	assert_true(json_integer_value(json_object_get(after, "ranges")) >= 1);   /* resumed */
	for (int i = 0; i < 4; i++) {
		if (!p[i].info.shared) {
			assert_int_equal(p[i].info.layers, 2);
			assert_true(p[i].info.fetched_bytes >= 1000000);
			assert_true(p[i].info.total_ns > 0);
			assert_true(p[i].info.unpack_ns > 0);
			assert_string_equal(json_string_value(json_array_get(p[i].info.repo_tags, 0)), ref);
			/* pulled through an index: imageID names the index, id the amd64 manifest */
			assert_string_not_equal(strchr(p[i].info.image_ref, '@') + 1, p[i].info.id);
			assert_string_equal(json_string_value(json_array_get(p[i].info.repo_digests, 0)),
					    p[i].info.image_ref);
		}
		sk_image_info_release(&p[i].info);
	}
	assert_true(sk_image_is_present(s, ref));
	sk_image_store_free(s);
	sk__image_rm_rf(tmpl);
}

static void test_errors(void **state)
{
	char tmpl[] = "/tmp/skiff-image-pull.XXXXXX";
	cleanup_free char *missing = xasprintf("%s/busybox:nope", host);
	cleanup_free char *platform = xasprintf("%s/busybox:1", host);
	sk_pull_options arm = {.platform = "linux/s390x"};
	sk_image_info info;
	sk_error_t err = {0};
	sk_image_store *s;

	if (fake_pid <= 0)
		skip();
	assert_non_null(mkdtemp(tmpl));
	s = sk_image_store_open(tmpl, NULL);
	assert_int_equal(sk_image_pull(s, missing, NULL, &info, &err), -1);
	assert_int_equal(err.code, SK_ENOTFOUND);
	assert_non_null(strstr(err.msg, ": manifest unknown"));
	assert_int_equal(sk_image_pull(s, platform, &arm, &info, &err), -1);
	assert_non_null(strstr(err.msg, "no matching manifest for linux/s390x"));
	assert_int_equal(sk_image_pull(s, "127.0.0.1:1/x:1", NULL, &info, &err), -1);
	assert_int_equal(err.code, SK_EUNAVAILABLE);
	sk_image_store_free(s);
	sk__image_rm_rf(tmpl);
}

static void test_auth_pick(void **state)
{
	json_t *docs[2] = {
		json_pack("{s:{s:{s:s}}}", "auths", "other:5000", "auth", "eDp5"),
		json_pack("{s:{s:{s:s}, s:{s:s, s:s}}}", "auths", "https://index.docker.io/v1/", "auth",
			  "dXNlcjpwYTpzcw==", "127.0.0.1:5000", "username", "u", "password", "p"),
	};
	char *user = NULL, *pass = NULL;

	assert_int_equal(sk__img_auth_find(docs, 2, "docker.io", &user, &pass), 0);
	assert_string_equal(user, "user");
	assert_string_equal(pass, "pa:ss");
	free(user);
	free(pass);
	assert_int_equal(sk__img_auth_find(docs, 2, "127.0.0.1:5000", &user, &pass), 0);
	assert_string_equal(user, "u");
	free(user);
	free(pass);
	assert_int_equal(sk__img_auth_find(docs, 2, "other:5000", &user, &pass), 0);
	assert_string_equal(user, "x");
	free(user);
	free(pass);
	assert_int_equal(sk__img_auth_find(docs, 2, "quay.io", &user, &pass), -1);
	json_decref(docs[0]);
	json_decref(docs[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_singleflight_resume),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_auth_pick),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
