"""Files shaped like the ones spec-kit, OpenSpec and Kiro write, in our own words.

Each constant reproduces the structure of an upstream template or a real-world output
(front matter, phase sections, the Notes bullets, id and marker spellings, nested bullets,
code fences, HTML comments, placeholders); the text is ours. The test that uses a
constant names the upstream file it mirrors.
"""

from __future__ import annotations

SPECKIT_TEMPLATE_TASKS = """\
---

description: "Checklist template for building a feature"
---

# Tasks: [FEATURE NAME]

**Input**: Design documents from `/specs/[###-feature-name]/`
**Prerequisites**: plan.md (required), spec.md, research.md, data-model.md, contracts/

**Tests**: the sample holds test tasks; keep them only when the spec asks for tests.

## Table of Contents

<!-- An example list: the generator rewrites it
     from the headings it writes. -->

- Format
- Path Conventions
- Phase 1: Setup (Shared Infrastructure)
- Notes

## Format: `[ID] [P?] [Story] Description`

- **[P]**: safe to run alongside others (separate files)
- **[Story]**: the user story served (US1, US2)
- Name the exact files in each description

## Path Conventions

- **Single project**: `src/`, `tests/` at the root
- **Web app**: `backend/src/`, `frontend/src/`
- Paths below assume one project; follow plan.md's layout

<!--\x20
  ==================================================================
  SAMPLE TASKS ONLY. The generator replaces them with:
  - the stories of spec.md
  - the entities of data-model.md
  ==================================================================
-->

## Phase 1: Setup (Shared Infrastructure)

**Purpose**: scaffolding

- [ ] T001 Lay out the folders the plan describes
- [ ] T002 Pin [language] and [framework] versions
- [ ] T003 [P] Switch on linting and formatting

---

## Phase 3: User Story 1 - [Title] (Priority: P1) 🎯 MVP

**Goal**: [what the story delivers]

### Tests for User Story 1 (OPTIONAL) ⚠️

> **NOTE: write these first and watch them fail**

- [ ] T010 [P] [US1] Contract test for [endpoint] in tests/contract/test_[name].py

### Implementation for User Story 1

- [ ] T012 [P] [US1] Create [Entity1] model in src/models/[entity1].py
- [ ] T014 [US1] Implement [Service] in src/services/[service].py (depends on T012)

**Checkpoint**: story 1 works on its own

---

[More story phases follow the same shape]

---

## Phase N: Polish & Cross-Cutting Concerns

- [ ] TXXX [P] Bring the docs up to date in docs/
- [ ] TXXX Tidy up and refactor
- [ ] TXXX [P] Extra unit tests (when asked for) in tests/unit/

---

## Dependencies & Execution Order

- **Setup (Phase 1)**: starts at once
- **User Stories (Phase 3+)**: after the foundation
  - then side by side, or one by one in priority order (P1 → P2)

## Parallel Example: User Story 1

```bash
# start the story's tests together:
Task: "Contract test for [endpoint] in tests/contract/test_[name].py"
```

## Notes

- [P] marks tasks that touch separate files and wait on nothing
- [Story] ties a task to its user story, so it can be traced
- Commit after every task or group of tasks
"""

SPECKIT_TEMPLATE_SPEC = """\
# Feature Specification: [FEATURE NAME]

**Feature Branch**: `[###-feature-name]`
**Status**: Draft
**Input**: User description: "$ARGUMENTS"

## User Scenarios & Testing _(mandatory)_

<!--
  Order the stories by importance; each must be testable alone.
  - built alone
  - shipped alone
-->

### User Story 1 - [Brief Title] (Priority: P1)

**Acceptance Scenarios**:

1. **Given** [a state], **When** [an action], **Then** [an outcome]

**Functional Requirements**:

- **FR-001**: System MUST [a capability, e.g., "let users sign up"]
- **FR-002**: System MUST sign users in via [NEEDS CLARIFICATION: which method?]

### User Story 2 - [Brief Title] (Priority: P2)

**Functional Requirements**:

- **FR-001**: System MUST [a capability, e.g., "let users sign up"]

## Key Entities _(include if feature involves data)_

- **[Entity 1]**: [what it stands for]
"""

SPECKIT_TEMPLATE_PLAN = """\
---
description: "Plan template for a feature"
scripts:
  sh: scripts/bash/refresh-agent-file.sh __AGENT__
---

# Implementation Plan: [FEATURE]

**Branch**: `[###-feature-name]` | **Date**: [DATE] | **Spec**: [link]
**Input**: Feature specification from `/specs/[###-feature-name]/spec.md`

## Technical Context
**Language/Version**: [e.g., Python 3.11 or NEEDS CLARIFICATION]

## Project Structure

### Source Code (repository root)
<!--
  ACTION REQUIRED: swap the tree below for the real layout.
-->
```
# [REMOVE IF UNUSED] Option 1: Single project (DEFAULT)
src/
├── models/
└── services/
```

## Progress Tracking

- [ ] Phase 0: Research complete
- [ ] Phase 1: Design complete

| Violation | Why Needed |
|-----------|------------|
| [e.g., a 4th project] | [the need] |
"""

#: A generated tasks.md as real repositories hold it: ticked ``[X]``, ids written
#: ``**T004**``, ``[T005]`` and ``T006a``, labels beyond ``[P]`` and ``[USn]``, detail
#: bullets under a task, a code fence, the Notes section.
SPECKIT_OUTPUT_TASKS = """\
# Tasks: Reading list

**Input**: Design documents from `/specs/002-reading-list/`

## Format: `[ID] [P?] [Story] Description`

- **[P]**: Can run in parallel
- [plan.md](plan.md): the layout these paths follow

## Phase 1: Setup

- [X] T001 Create the package in src/reading/__init__.py
- [X] T002 [P] Add ruff settings to pyproject.toml

## Phase 2: Foundational

- [x] T003 [P] [SETUP] Create the Book model in src/reading/models.py
  - fields: title, author, added_at
  - see `data-model.md` for the full list
- [ ] **T004** [US1] Store books in src/reading/store.py
- [ ] [T005] [P] [US1] [DB] Write the migration in migrations/0002_books.sql
- [ ] T006a [US2] [OWNER SEAM] Confirm the sort order with the owner

## Phase 3: User Story 1 - Add a book (Priority: P1)

```text
src/reading/
└── api.py
```

- [ ] T007 [US1] Expose POST /books in `src/reading/api.py`

---

## Notes

- [P] tasks touch different files
- [Story] maps a task to its story
- [US1] is the MVP
"""

OPENSPEC_TEMPLATE_PROPOSAL = """\
# Proposal

## Why

<!-- What problem this solves, and why now. -->

## Review Focus

<!-- A few bullets; leave it empty rather than pad it. -->
- Decisions a reviewer should confirm
- What is left out on purpose

## What Changes

<!-- What will change: new capabilities, changes, removals. -->

## Capabilities

### New Capabilities
<!-- Each creates specs/<capability-path>/spec.md. Set `skip_specs: true` in
     .openspec.yaml for a change without one. -->
- `<capability-path>`: <what this capability covers>

## Impact

<!-- Code, APIs, dependencies touched -->
"""

OPENSPEC_TEMPLATE_SPEC = """\
## ADDED Requirements

### Requirement: <!-- requirement name -->
<!-- requirement text -->

#### Scenario: <!-- scenario name -->
- **GIVEN** <!-- a precondition -->
- **WHEN** <!-- a trigger -->
- **THEN** <!-- an outcome -->
"""

OPENSPEC_TEMPLATE_TASKS = """\
# Tasks

## 1. Planning

- [ ] 1.1 Agree on the goal and the open questions.
- [ ] 1.2 List the areas the change touches.

## 2. Verification

- [ ] 2.1 Check the planning documents stay the source of truth.
"""

#: A change as OpenSpec's own repository holds them: numbered sections without a title,
#: backticked paths and commands, a spec delta with every section kind.
OPENSPEC_OUTPUT_TASKS = """\
## 1. Metadata

- [x] 1.1 Add the optional `dependsOn` and `touches` fields to `src/core/schema.ts`
- [x] 1.2 Keep changes without the fields valid
- [ ] 1.3 Test valid and invalid metadata in `test/core/schema.test.ts`

## 2. Documentation

- [ ] 2.1 Describe the workflow in `docs/concepts.md`
- [ ] 2.2 Run the whole suite (`pnpm test`) and fix what breaks
"""

OPENSPEC_OUTPUT_PROPOSAL = """\
## Why
Large changes are hard to review; they should be stackable.

## What Changes
- Changes may declare what they depend on
- **BREAKING**: none

## Capabilities

### New Capabilities
- `change-stacking`: ordering changes by their dependencies

### Modified Capabilities
- `cli-validate`: reports dependency cycles

## Impact
- Affected code: `src/core/`, `src/commands/change.ts`
"""

OPENSPEC_OUTPUT_SPEC = """\
## ADDED Requirements

### Requirement: Dependency Metadata
A change SHALL be able to name the changes it depends on.

#### Scenario: A change names a dependency
- **GIVEN** two active changes
- **WHEN** one lists the other in `dependsOn`
- **THEN** validation accepts it
- **AND** the order puts the dependency first

## MODIFIED Requirements

### Requirement: Validation Errors
Validation SHALL report a dependency cycle as an error.

#### Scenario: Cycle
- **WHEN** two changes depend on each other
- **THEN** validation fails and names both

## REMOVED Requirements

### Requirement: Implementation Order File
**Reason**: the metadata replaces it
**Migration**: move the order into `dependsOn`

## RENAMED Requirements

- FROM: `### Requirement: Change Listing`
- TO: `### Requirement: Change Graph`
"""

#: A Kiro spec as Kiro writes them now: a glossary and titled requirements with EARS
#: criteria, a design with a mermaid fence and correctness properties, and a task list
#: with ``## Overview``/``## Tasks``/``## Notes``, nested and optional (``- [ ]*``)
#: sub-tasks, ``[PBT]`` labels, ``_Requirements:_`` and ``**Validates:**`` lines.
KIRO_OUTPUT_REQUIREMENTS = """\
# Requirements Document

## Introduction

Teams want a weekly digest of what changed.

## Glossary

- **Digest_Service**: the part that builds the digest

## Requirements

### Requirement 1: Build the digest

**User Story:** As a lead, I want a weekly digest, so that I see what changed.

#### Acceptance Criteria

1. WHEN a week ends, THE Digest_Service SHALL build a digest of merged changes
2. IF no change was merged, THEN THE Digest_Service SHALL send nothing

### Requirement 2: Deliver it

**User Story:** As a lead, I want the digest by mail, so that I need not look for it.

#### Acceptance Criteria

1. WHEN a digest is built, THE Digest_Service SHALL mail it to the team list
"""

KIRO_OUTPUT_DESIGN = """\
# Design Document: Weekly digest

## Overview

The digest is built by `src/digest/builder.py` and mailed by `src/digest/mailer.py`.

## Architecture

```mermaid
graph TD
  A[scheduler] --> B[src/digest/ignored.py]
```

## Correctness Properties

### Property 1: Nothing is sent for an empty week

**Validates: Requirements 1.2**
"""

KIRO_OUTPUT_TASKS = """\
# Implementation Plan: Weekly digest

## Overview

The tasks build the digest first, then its delivery.

## Tasks

- [x] 1. Set up the digest package
  - Create `src/digest/__init__.py`
  - _Requirements: 1.1_

- [-] 2. Build the digest
  - [x] 2.1 Collect merged changes in src/digest/builder.py
    - group them by author
    - _Requirements: 1.1_
  - [ ]* 2.2 [PBT] Property 1: nothing is sent for an empty week
    - **Property 1: Nothing is sent for an empty week**
    - **Validates: Requirements 1.2**
    - write it in `tests/digest/test_props.py`

- [ ] 3. Checkpoint — make sure the tests pass
  - Ask the user if questions come up.

- [ ]* 4 Mail the digest from src/digest/mailer.py
  - _Requirements: 2.1_

## Notes

- Tasks marked with `*` are optional and can be skipped for a faster MVP
- [design](design.md) explains the components
"""
