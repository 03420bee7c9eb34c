"""A realistic set of MCP tools for the search tests and bench/mcp_context.py.

Seven servers modelled on ones people run (git, GitHub, filesystem, time, fetch, Sentry,
Postgres): the tool names those servers use, with descriptions and input schemas written
here in the same spirit. Each tool is `(name, description, parameters)`; a parameter is
`name[:type][?]`, `?` marking it optional, and gets a short description made from its name.
"""

from __future__ import annotations

from typing import Any

from pith.mcp import McpTool, tool_names

_TYPES = {"int": "integer", "bool": "boolean", "list": "array", "obj": "object", "num": "number"}

Spec = tuple[str, str, str]

GIT: list[Spec] = [
    ("git_status", "Shows the working tree status of the repository", "repo_path"),
    ("git_diff_unstaged", "Shows changes in the working directory not yet staged", "repo_path"),
    ("git_diff_staged", "Shows changes that are staged for commit", "repo_path"),
    ("git_diff", "Shows differences between branches or commits", "repo_path target"),
    ("git_commit", "Records changes to the repository with a message", "repo_path message"),
    ("git_add", "Adds file contents to the staging area", "repo_path files:list"),
    ("git_reset", "Unstages all staged changes", "repo_path"),
    ("git_log", "Shows the commit logs, newest first", "repo_path max_count:int?"),
    ("git_create_branch", "Creates a new branch from an optional base", "repo_path branch_name"),
    ("git_checkout", "Switches branches", "repo_path branch_name"),
    ("git_show", "Shows the contents of a commit", "repo_path revision"),
    ("git_branch", "Lists local or remote branches", "repo_path branch_type contains?"),
]

GITHUB: list[Spec] = [
    ("get_me", "Get details of the authenticated GitHub user", ""),
    ("search_repositories", "Search for GitHub repositories", "query page:int? perPage:int?"),
    ("create_repository", "Create a new GitHub repository in your account", "name private:bool?"),
    (
        "fork_repository",
        "Fork a GitHub repository to your account or an organization",
        "owner repo",
    ),
    (
        "get_file_contents",
        "Get the contents of a file or directory from a GitHub repository",
        "owner repo path ref?",
    ),
    (
        "create_or_update_file",
        "Create or update a single file in a GitHub repository",
        "owner repo path content message branch sha?",
    ),
    ("delete_file", "Delete a file from a GitHub repository", "owner repo path message branch"),
    (
        "push_files",
        "Push several files to a GitHub repository in one commit",
        "owner repo branch files:list message",
    ),
    (
        "create_branch",
        "Create a new branch in a GitHub repository",
        "owner repo branch from_branch?",
    ),
    ("list_branches", "List branches in a GitHub repository", "owner repo page:int?"),
    (
        "list_commits",
        "Get the list of commits of a branch in a GitHub repository",
        "owner repo sha? author?",
    ),
    ("get_commit", "Get details for a commit from a GitHub repository", "owner repo sha"),
    ("list_tags", "List git tags in a GitHub repository", "owner repo"),
    ("get_tag", "Get details about a specific git tag", "owner repo tag"),
    ("list_releases", "List releases in a GitHub repository", "owner repo"),
    ("get_latest_release", "Get the latest release in a GitHub repository", "owner repo"),
    ("get_release_by_tag", "Get a release by its tag name", "owner repo tag"),
    ("search_code", "Fast code search across all GitHub repositories", "query sort? order?"),
    ("search_users", "Search for GitHub users", "query"),
    ("search_orgs", "Search for GitHub organizations", "query"),
    (
        "get_issue",
        "Get details of a specific issue in a GitHub repository",
        "owner repo issue_number:int",
    ),
    (
        "list_issues",
        "List issues in a GitHub repository, filtered by state and labels",
        "owner repo state? labels:list?",
    ),
    ("search_issues", "Search for issues across GitHub repositories", "query"),
    (
        "create_issue",
        "Create a new issue in a GitHub repository",
        "owner repo title body? assignees:list? labels:list?",
    ),
    (
        "update_issue",
        "Update an existing issue: title, body, state, labels or assignees",
        "owner repo issue_number:int title? body? state?",
    ),
    (
        "add_issue_comment",
        "Add a comment to a specific issue in a GitHub repository",
        "owner repo issue_number:int body",
    ),
    ("get_issue_comments", "Get comments for a specific issue", "owner repo issue_number:int"),
    ("list_sub_issues", "List sub-issues of an issue", "owner repo issue_number:int"),
    (
        "add_sub_issue",
        "Add a sub-issue to a parent issue",
        "owner repo issue_number:int sub_issue_id:int",
    ),
    (
        "remove_sub_issue",
        "Remove a sub-issue from a parent issue",
        "owner repo issue_number:int sub_issue_id:int",
    ),
    ("list_issue_types", "List the issue types supported by an organization", "owner"),
    (
        "assign_copilot_to_issue",
        "Assign Copilot to work on a specific issue",
        "owner repo issueNumber:int",
    ),
    ("get_pull_request", "Get details of a specific pull request", "owner repo pullNumber:int"),
    (
        "list_pull_requests",
        "List pull requests in a GitHub repository",
        "owner repo state? head? base?",
    ),
    ("search_pull_requests", "Search for pull requests across GitHub repositories", "query"),
    (
        "create_pull_request",
        "Create a new pull request in a GitHub repository",
        "owner repo title head base body? draft:bool?",
    ),
    (
        "update_pull_request",
        "Edit a pull request's title, body, state or base branch",
        "owner repo pullNumber:int title? body? state?",
    ),
    (
        "merge_pull_request",
        "Merge a pull request in a GitHub repository",
        "owner repo pullNumber:int merge_method? commit_title?",
    ),
    (
        "get_pull_request_files",
        "Get the files changed in a pull request",
        "owner repo pullNumber:int",
    ),
    ("get_pull_request_diff", "Get the diff of a pull request", "owner repo pullNumber:int"),
    (
        "get_pull_request_status",
        "Get the status of all checks for a pull request",
        "owner repo pullNumber:int",
    ),
    (
        "get_pull_request_comments",
        "Get the review comments on a pull request",
        "owner repo pullNumber:int",
    ),
    ("get_pull_request_reviews", "Get the reviews on a pull request", "owner repo pullNumber:int"),
    (
        "update_pull_request_branch",
        "Update a pull request branch with the latest base changes",
        "owner repo pullNumber:int",
    ),
    (
        "request_copilot_review",
        "Request a Copilot code review for a pull request",
        "owner repo pullNumber:int",
    ),
    (
        "create_pending_pull_request_review",
        "Start a pending review on a pull request",
        "owner repo pullNumber:int",
    ),
    (
        "add_comment_to_pending_review",
        "Add a review comment to your pending pull request review",
        "owner repo pullNumber:int path body line:int?",
    ),
    (
        "submit_pending_pull_request_review",
        "Submit your pending pull request review",
        "owner repo pullNumber:int event body?",
    ),
    (
        "delete_pending_pull_request_review",
        "Delete your pending pull request review",
        "owner repo pullNumber:int",
    ),
    (
        "create_and_submit_pull_request_review",
        "Create and submit a review of a pull request",
        "owner repo pullNumber:int body event",
    ),
    ("list_workflows", "List the GitHub Actions workflows of a repository", "owner repo"),
    (
        "list_workflow_runs",
        "List runs of a GitHub Actions workflow",
        "owner repo workflow_id status? branch?",
    ),
    ("get_workflow_run", "Get details of a GitHub Actions workflow run", "owner repo run_id:int"),
    (
        "run_workflow",
        "Trigger a GitHub Actions workflow by dispatch",
        "owner repo workflow_id ref inputs:obj?",
    ),
    ("rerun_workflow_run", "Re-run an entire GitHub Actions workflow run", "owner repo run_id:int"),
    ("rerun_failed_jobs", "Re-run only the failed jobs of a workflow run", "owner repo run_id:int"),
    ("cancel_workflow_run", "Cancel a GitHub Actions workflow run", "owner repo run_id:int"),
    (
        "list_workflow_jobs",
        "List the jobs of a GitHub Actions workflow run",
        "owner repo run_id:int",
    ),
    (
        "get_job_logs",
        "Download the logs of a workflow job, or of every failed job of a run",
        "owner repo job_id:int? run_id:int? failed_only:bool? tail_lines:int?",
    ),
    ("get_workflow_run_logs", "Download the logs of a whole workflow run", "owner repo run_id:int"),
    (
        "list_workflow_run_artifacts",
        "List the artifacts of a workflow run",
        "owner repo run_id:int",
    ),
    (
        "download_workflow_run_artifact",
        "Get a download URL for a workflow run artifact",
        "owner repo artifact_id:int",
    ),
    ("get_workflow_run_usage", "Get the billable time of a workflow run", "owner repo run_id:int"),
    (
        "list_code_scanning_alerts",
        "List code scanning alerts in a GitHub repository",
        "owner repo state? severity?",
    ),
    (
        "get_code_scanning_alert",
        "Get details of a specific code scanning alert",
        "owner repo alertNumber:int",
    ),
    (
        "list_secret_scanning_alerts",
        "List secret scanning alerts in a GitHub repository",
        "owner repo state?",
    ),
    (
        "get_secret_scanning_alert",
        "Get details of a specific secret scanning alert",
        "owner repo alertNumber:int",
    ),
    (
        "list_dependabot_alerts",
        "List Dependabot alerts about vulnerable dependencies",
        "owner repo state? severity?",
    ),
    (
        "get_dependabot_alert",
        "Get details of a specific Dependabot alert",
        "owner repo alertNumber:int",
    ),
    (
        "list_notifications",
        "List GitHub notifications for the authenticated user",
        "filter? since?",
    ),
    (
        "get_notification_details",
        "Get details about a specific GitHub notification",
        "notificationID",
    ),
    ("dismiss_notification", "Mark a notification as read or done", "threadID state"),
    ("mark_all_notifications_read", "Mark all notifications as read", "lastReadAt? owner? repo?"),
    (
        "list_discussions",
        "List discussions of a repository or organization",
        "owner repo? category?",
    ),
    ("get_discussion", "Get a specific discussion", "owner repo discussionNumber:int"),
    (
        "get_discussion_comments",
        "Get the comments of a discussion",
        "owner repo discussionNumber:int",
    ),
    ("list_gists", "List gists of a user", "username?"),
    ("create_gist", "Create a new gist", "files:obj description? public:bool?"),
    ("star_repository", "Star a GitHub repository", "owner repo"),
    ("list_starred_repositories", "List the repositories a user starred", "username?"),
]

FILESYSTEM: list[Spec] = [
    (
        "read_text_file",
        "Read the complete contents of a file as text; head or tail lines only when given",
        "path head:int? tail:int?",
    ),
    ("read_media_file", "Read an image or audio file and return it as base64 data", "path"),
    ("read_multiple_files", "Read the contents of several files at once", "paths:list"),
    (
        "write_file",
        "Create a new file or overwrite an existing file with new content",
        "path content",
    ),
    (
        "edit_file",
        "Make line-based edits to a text file, returning a git-style diff",
        "path edits:list dryRun:bool?",
    ),
    ("create_directory", "Create a new directory, nested directories included", "path"),
    ("list_directory", "Get a listing of the files and directories in a path", "path"),
    ("list_directory_with_sizes", "List a directory's entries with their sizes", "path sortBy?"),
    (
        "directory_tree",
        "Get a recursive tree of files and directories as JSON",
        "path excludePatterns:list?",
    ),
    ("move_file", "Move or rename files and directories", "source destination"),
    (
        "search_files",
        "Recursively search for files and directories whose names match a glob pattern",
        "path pattern excludePatterns:list?",
    ),
    (
        "get_file_info",
        "Retrieve metadata about a file or directory: size, times, permissions",
        "path",
    ),
    ("list_allowed_directories", "List the directories this server is allowed to access", ""),
]

TIME: list[Spec] = [
    ("get_current_time", "Get the current time in a specific timezone", "timezone"),
    ("convert_time", "Convert a time between timezones", "source_timezone time target_timezone"),
]

FETCH: list[Spec] = [
    (
        "fetch",
        "Fetch a URL from the internet and extract its contents as markdown",
        "url max_length:int? start_index:int? raw:bool?",
    ),
]

SENTRY: list[Spec] = [
    ("find_organizations", "Find the Sentry organizations you have access to", ""),
    ("find_projects", "Find the projects in a Sentry organization", "organizationSlug"),
    (
        "search_issues",
        "Search Sentry issues (grouped errors) with a natural-language query",
        "organizationSlug naturalLanguageQuery projectSlug?",
    ),
    (
        "get_issue_details",
        "Get the details of a Sentry issue: stack trace, tags, first and last seen",
        "organizationSlug issueId",
    ),
    (
        "search_events",
        "Search and count error events and spans in Sentry",
        "organizationSlug naturalLanguageQuery",
    ),
    (
        "update_issue",
        "Resolve, ignore or assign a Sentry issue",
        "organizationSlug issueId status? assignedTo?",
    ),
    ("find_releases", "Find the releases of a Sentry project", "organizationSlug projectSlug?"),
    (
        "analyze_issue_with_seer",
        "Ask Seer for the root cause of a Sentry issue and a fix",
        "organizationSlug issueId",
    ),
]

POSTGRES: list[Spec] = [
    ("query", "Run a read-only SQL query against the Postgres database", "sql"),
    ("list_tables", "List the tables of the connected Postgres database", "schema?"),
    ("describe_table", "Show the columns, types and indexes of a Postgres table", "table schema?"),
]

SERVERS: dict[str, tuple[str, list[Spec]]] = {
    "git": ("Git repository operations on a local repository", GIT),
    "github": ("The GitHub API: repositories, issues, pull requests, Actions", GITHUB),
    "filesystem": ("Secure file operations within allowed directories", FILESYSTEM),
    "time": ("Current time and timezone conversions", TIME),
    "fetch": ("Web content fetching as markdown", FETCH),
    "sentry": ("Sentry error monitoring: issues, events, releases", SENTRY),
    "postgres": ("Read-only access to a Postgres database", POSTGRES),
}


def _words(name: str) -> str:
    out = ""
    for char in name:
        out += f" {char.lower()}" if char.isupper() else char
    return out.replace("_", " ").strip()


def schema(params: str) -> dict[str, Any]:
    """The input schema a parameter string describes."""
    properties: dict[str, Any] = {}
    required = []
    for item in params.split():
        optional = item.endswith("?")
        name, _, kind = item.rstrip("?").partition(":")
        prop: dict[str, Any] = {
            "type": _TYPES.get(kind, "string"),
            "description": f"The {_words(name)}",
        }
        if kind == "list":
            prop["items"] = {"type": "string"}
        properties[name] = prop
        if not optional:
            required.append(name)
    out: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        out["required"] = required
    return out


def server_tools(server: str, specs: list[Spec], exposure: str = "deferred") -> list[McpTool]:
    names = tool_names(server, [spec[0] for spec in specs])
    return [
        McpTool(
            server=server,
            name=name,
            full_name=names[name],
            description=description,
            input_schema=schema(params),
            exposure="deferred" if exposure == "deferred" else "direct",
        )
        for name, description, params in specs
    ]


def corpus(servers: tuple[str, ...] | None = None) -> tuple[list[McpTool], dict[str, str]]:
    """Every tool of the named servers (all seven by default) and the servers' summaries."""
    chosen = servers or tuple(SERVERS)
    tools = [tool for name in chosen for tool in server_tools(name, SERVERS[name][1])]
    return tools, {name: SERVERS[name][0] for name in chosen}
