"""Each tool's files, written from its documented format (templates and examples).

spec-kit: ``templates/spec-template.md``, ``plan-template.md`` and ``tasks-template.md``
of github/spec-kit (``/speckit.implement`` ticks done tasks ``[X]``). OpenSpec:
``openspec/AGENTS.md`` of Fission-AI/OpenSpec (proposal Why/What Changes/Impact, numbered
task sections, spec deltas with ``#### Scenario:``). Kiro: the requirements / design /
implementation-plan documents Kiro writes under ``.kiro/specs/<feature>/`` (EARS
acceptance criteria, ``- [ ] 1.`` tasks with ``_Requirements:_`` references, ``- [-]`` for a
task under way, ``- [ ]*`` for an optional one).
"""

from __future__ import annotations

from pathlib import Path

import pytest

SPEC = """\
# Team intents: keep this comment
active_intents:
  - id: INT-001   # the first one
    name: Existing work
    status: IN_PROGRESS
    owned_scope:
      - lib/**
    # notes under the intent stay with it

# trailing comment about the list
"""

SPECKIT_SPEC = """\
# Feature Specification: Photo albums

**Feature Branch**: `001-photo-albums`
**Created**: 2026-01-10
**Status**: Draft
**Input**: User description: "Organise photos into albums"

## User Scenarios & Testing *(mandatory)*

### User Story 1 - Create an album (Priority: P1)

A user groups photos into an album.

**Acceptance Scenarios**:

1. **Given** photos exist, **When** the user creates an album, **Then** it is listed

## Requirements *(mandatory)*

### Functional Requirements

- **FR-001**: System MUST allow users to create albums
- **FR-002**: System MUST sort albums by date

### Key Entities

- **Album**: a named group of photos

## Success Criteria *(mandatory)*

- **SC-001**: Users create an album in under 30 seconds
"""

SPECKIT_PLAN = """\
# Implementation Plan: Photo albums

**Branch**: `001-photo-albums` | **Date**: 2026-01-11 | **Spec**: [spec.md](spec.md)

## Summary

Albums are stored in SQLite; the API lives in `src/api/albums.py`.

## Project Structure

### Source Code (repository root)

```text
src/
├── models/
└── services/
tests/
```

**Structure Decision**: single project; the album model in `src/models/album.py`.
"""

SPECKIT_TASKS = """\
---
description: "Task list for Photo albums"
---

# Tasks: Photo albums

**Input**: Design documents from `/specs/001-photo-albums/`
**Prerequisites**: plan.md (required), spec.md (required for user stories)

## Format: `[ID] [P?] [Story] Description`

- **[P]**: Can run in parallel (different files, no dependencies)

<!--
  The tasks below replace the sample tasks, e.g.
  - [ ] T999 Sample task in src/sample.py
-->

## Phase 1: Setup (Shared Infrastructure)

- [X] T001 Create project structure per implementation plan
- [x] T002 [P] Configure linting in pyproject.toml

## Phase 3: User Story 1 - Create an album (Priority: P1) 🎯 MVP

- [X] T010 [P] [US1] Contract test for POST /albums in tests/contract/test_albums.py
- [ ] T012 [P] [US1] Create Album model in src/models/album.py
- [ ] T014 [US1] Implement AlbumService in src/services/album_service.py (depends on T012)
- [ ] T016 [US1] Document the endpoint in plan.md and quickstart.md
"""

OPENSPEC_PROPOSAL = """\
## Why
Users lose track of long sessions; a two-factor login protects accounts.

## What Changes
- Add an OTP step to login in `src/auth/login.ts`
- **BREAKING**: sessions created before the change are revoked

## Impact
- Affected specs: `specs/auth`
- Affected code: `src/auth/`, `src/session/store.ts`
"""

OPENSPEC_TASKS = """\
## 1. Implementation
- [x] 1.1 Create database schema in `migrations/004_otp.sql`
- [x] 1.2 Implement the OTP check in `src/auth/otp.ts`
- [ ] 1.3 Add the OTP step to `src/auth/login.ts`

## 2. Tests
- [ ] 2.1 Write tests in `tests/auth/otp.test.ts`
"""

OPENSPEC_DESIGN = """\
## Context
Login today is password-only (`src/auth/login.ts`).

## Decisions
- Decision: TOTP codes, verified in `src/auth/otp.ts`
"""

OPENSPEC_SPEC = """\
## ADDED Requirements
### Requirement: Two-Factor Authentication
Users MUST provide a second factor during login.

#### Scenario: OTP required
- **WHEN** valid credentials are provided
- **THEN** an OTP challenge is required

## MODIFIED Requirements
### Requirement: Session Lifetime
Sessions SHALL expire after 12 hours.

#### Scenario: Expired session
- **WHEN** a session is older than 12 hours
- **THEN** the user is asked to log in again

## REMOVED Requirements
### Requirement: Remember Me Forever
**Reason**: unsafe
**Migration**: none
"""

KIRO_REQUIREMENTS = """\
# Requirements Document

## Introduction

Users want to export their data as CSV.

## Requirements

### Requirement 1

**User Story:** As a user, I want to export my orders, so that I can analyse them.

#### Acceptance Criteria

1. WHEN the user requests an export THEN the system SHALL produce a CSV file
2. IF the user has no orders THEN the system SHALL return an empty file with headers

### Requirement 2

**User Story:** As an admin, I want exports logged, so that I can audit them.

#### Acceptance Criteria

1. WHEN an export completes THEN the system SHALL write an audit entry
"""

KIRO_DESIGN = """\
# Design Document

## Overview

The exporter streams rows from `src/export/csv_writer.py`.

## Components and Interfaces

- `src/export/service.py`: the export service
"""

KIRO_TASKS = """\
# Implementation Plan

- [x] 1. Set up the export module
  - Create `src/export/__init__.py` and the package layout
  - _Requirements: 1.1_

- [-] 2. Implement the CSV writer
  - [x] 2.1 Write the row encoder in src/export/csv_writer.py
    - Escape quotes and separators
    - _Requirements: 1.1, 1.2_
  - [ ] 2.2 Stream rows from the service in src/export/service.py
    - _Requirements: 1.1_

- [ ]* 3. Add property tests in tests/export/test_csv_props.py
  - _Requirements: 1.2_

- [ ] 4. Audit log entry in src/audit/log.py
  - _Requirements: 2.1_
"""


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    write(
        root,
        {
            ".orchestration/active_intents.yaml": SPEC,
            "specs/001-photo-albums/spec.md": SPECKIT_SPEC,
            "specs/001-photo-albums/plan.md": SPECKIT_PLAN,
            "specs/001-photo-albums/tasks.md": SPECKIT_TASKS,
            "specs/001-photo-albums/quickstart.md": "# Quickstart\n",
            "openspec/changes/add-2fa/proposal.md": OPENSPEC_PROPOSAL,
            "openspec/changes/add-2fa/tasks.md": OPENSPEC_TASKS,
            "openspec/changes/add-2fa/design.md": OPENSPEC_DESIGN,
            "openspec/changes/add-2fa/specs/auth/spec.md": OPENSPEC_SPEC,
            "openspec/changes/archive/2025-01-01-old/proposal.md": "## Why\nOld.\n",
            "openspec/changes/archive/2025-01-01-old/tasks.md": "- [x] 1.1 Done\n",
            ".kiro/specs/csv-export/requirements.md": KIRO_REQUIREMENTS,
            ".kiro/specs/csv-export/design.md": KIRO_DESIGN,
            ".kiro/specs/csv-export/tasks.md": KIRO_TASKS,
        },
    )
    return root
