#!/usr/bin/env bash
# Posts $CKB_OUT/ckb-diff.md as ONE comment on pull request $PR_NUMBER of $GITHUB_REPOSITORY: the
# comment that starts with ckb's marker is updated in place, or created when there is none, so
# every push refreshes the same comment instead of adding another.
set -euo pipefail
source "$(dirname "$0")/common.sh"
: "${GITHUB_REPOSITORY:?owner/repo}" "${PR_NUMBER:?the pull request number}"
body="$out_dir/ckb-diff.md"
marker='<!-- ckb:diff -->'
id="$(gh api "repos/$GITHUB_REPOSITORY/issues/$PR_NUMBER/comments" --paginate \
  | jq -r --arg m "$marker" '.[] | select(.body | startswith($m)) | .id' | head -n 1)"
if [ -n "$id" ]; then
  gh api --method PATCH "repos/$GITHUB_REPOSITORY/issues/comments/$id" -F "body=@$body" >/dev/null
  echo "updated comment $id"
else
  gh api --method POST "repos/$GITHUB_REPOSITORY/issues/$PR_NUMBER/comments" -F "body=@$body" >/dev/null
  echo "created the comment"
fi
