/* OCI image manifests and indexes, and Docker schema 2 manifests and lists. */
#include "image/image.h"
#include "image/image-int.h"

#include <string.h>

#include "util/util.h"

static char *dup_str(json_t *o, const char *key)
{
	const char *v = json_string_value(json_object_get(o, key));

	return v ? xstrdup(v) : NULL;
}

static int parse_desc(json_t *j, sk_image_desc *d, const char *what, sk_error_t *err)
{
	const char *digest = json_string_value(json_object_get(j, "digest"));
	json_t *size = json_object_get(j, "size");
	json_t *plat = json_object_get(j, "platform");

	if (!json_is_object(j) || !digest)
		return sk_error_set(err, SK_EINVALID, "manifest: %s: missing digest", what);
	if (sk_image_digest_check(digest, err) < 0)
		return sk_error_wrap(err, "manifest: %s", what);
	if (!json_is_integer(size) || json_integer_value(size) < 0)
		return sk_error_set(err, SK_EINVALID, "manifest: %s: invalid size", what);
	snprintf(d->digest, sizeof(d->digest), "%s", digest);
	d->size = json_integer_value(size);
	d->media_type = dup_str(j, "mediaType");
	if (json_is_object(plat)) {
		d->os = dup_str(plat, "os");
		d->arch = dup_str(plat, "architecture");
		d->variant = dup_str(plat, "variant");
	}
	return 0;
}

static void desc_release(sk_image_desc *d)
{
	free(d->media_type);
	free(d->os);
	free(d->arch);
	free(d->variant);
	memset(d, 0, sizeof(*d));
}

static int parse_list(json_t *arr, sk_image_manifest *m, const char *what, sk_error_t *err)
{
	size_t i;
	json_t *v;

	if (!json_is_array(arr))
		return sk_error_set(err, SK_EINVALID, "manifest: missing %s", what);
	if (json_array_size(arr) > 4096)
		return sk_error_set(err, SK_EINVALID, "manifest: too many %s", what);
	m->layers = xzalloc(sizeof(*m->layers) * (json_array_size(arr) + 1));
	json_array_foreach(arr, i, v) {
		char ctx[64];

		snprintf(ctx, sizeof(ctx), "%s[%zu]", what, i);
		if (parse_desc(v, &m->layers[i], ctx, err) < 0)
			return -1;
		m->n_layers++;
	}
	return 0;
}

int sk_image_manifest_parse(const char *data, size_t len, sk_image_manifest *out, sk_error_t *err)
{
	cleanup_json json_t *j = NULL;
	json_error_t jerr;
	const char *mt;

	memset(out, 0, sizeof(*out));
	j = json_loadb(data, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!json_is_object(j))
		return sk_error_set(err, SK_EINVALID, "manifest: invalid JSON: %s", j ? "not an object" : jerr.text);
	mt = json_string_value(json_object_get(j, "mediaType"));
	out->media_type = mt ? xstrdup(mt) : NULL;
	if (json_integer_value(json_object_get(j, "schemaVersion")) != 2) {
		sk_image_manifest_release(out);
		return sk_error_set(err, SK_EUNSUPPORTED, "manifest: unsupported schema version");
	}
	if ((mt && (!strcmp(mt, SK_MT_OCI_INDEX) || !strcmp(mt, SK_MT_DOCKER_LIST))) ||
	    (!mt && json_object_get(j, "manifests") && !json_object_get(j, "layers"))) {
		out->is_index = 1;
		if (parse_list(json_object_get(j, "manifests"), out, "manifests", err) < 0)
			goto fail;
		return 0;
	}
	if (mt && strcmp(mt, SK_MT_OCI_MANIFEST) && strcmp(mt, SK_MT_DOCKER_MANIFEST)) {
		sk_error_set(err, SK_EUNSUPPORTED, "manifest: unsupported media type \"%.100s\"", mt);
		goto fail;
	}
	if (parse_desc(json_object_get(j, "config"), &out->config, "config", err) < 0)
		goto fail;
	if (parse_list(json_object_get(j, "layers"), out, "layers", err) < 0)
		goto fail;
	return 0;
fail:
	sk_image_manifest_release(out);
	return -1;
}

void sk_image_manifest_release(sk_image_manifest *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n_layers; i++)
		desc_release(&m->layers[i]);
	free(m->layers);
	desc_release(&m->config);
	free(m->media_type);
	memset(m, 0, sizeof(*m));
}

int sk_image_manifest_select(const sk_image_manifest *idx, const char *platform)
{
	char os[32] = "", arch[32] = "", variant[32] = "";
	int best = -1;

	sscanf(platform, "%31[^/]/%31[^/]/%31s", os, arch, variant);
	for (size_t i = 0; i < idx->n_layers; i++) {
		const sk_image_desc *d = &idx->layers[i];

		if (!d->os || !d->arch || strcmp(d->os, os) || strcmp(d->arch, arch))
			continue;
		if (variant[0] && d->variant && !strcmp(d->variant, variant))
			return (int)i;
		if (best < 0 && (!variant[0] || !d->variant))
			best = (int)i;
	}
	return best;
}
