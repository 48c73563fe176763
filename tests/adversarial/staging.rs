//! Hostile cases: The staging area and journal: recovery trusts only what it can verify.

use super::*;

pub(super) fn cases(v: &mut Vec<Case>) {
    use Expect::*;
    // --- The staging area and journal: recovery trusts only what it can verify. ---
    #[cfg(unix)]
    {
        v.push(case(
            "staging-is-symlink",
            &render_o(),
            Fail("not a directory capi-render made"),
            |s| {
                good_tree(s);
                link(s.join("outside"), &s.join("out/.capi-render.staging"));
            },
        ));
        v.push(case(
            "staging-old-entry-symlink",
            &render_o(),
            Fail("cannot recover"),
            |s| {
                good_tree(s);
                fake_staging(s, "capi-render journal 2\nW 1 5 6 kustomization.yaml\n");
                link(
                    s.join("outside/victim.yaml"),
                    &s.join("out/.capi-render.staging/old/kustomization.yaml"),
                );
            },
        ));
        v.push(case(
            "staging-old-dir-symlink",
            &render_o(),
            Fail("cannot recover"),
            |s| {
                good_tree(s);
                fake_staging(s, "capi-render journal 2\nW 1 5 6 kustomization.yaml\n");
                link(s.join("outside"), &s.join("out/.capi-render.staging/old"));
            },
        ));
        v.push(case(
            "staging-new-dir-symlink",
            &render_o(),
            Fail("cannot recover"),
            |s| {
                good_tree(s);
                fake_staging(s, "capi-render journal 2\nW 0 5 0 README.md\n");
                link(s.join("outside"), &s.join("out/.capi-render.staging/new"));
            },
        ));
        v.push(case(
            "journal-is-symlink",
            &render_o(),
            Fail("cannot recover"),
            |s| {
                good_tree(s);
                fake_staging(s, "");
                let j = s.join("out/.capi-render.staging/journal");
                std::fs::remove_file(&j).unwrap();
                write(
                    &s.join("outside/journal"),
                    "capi-render journal 2\nW 0 1 0 README.md\n",
                );
                link(s.join("outside/journal"), &j);
            },
        ));
        v.push(case(
            "tree-dir-symlink",
            &render_o(),
            Fail("symbolic link"),
            |s| {
                good_tree(s);
                let p = s.join("out/providers");
                std::fs::remove_dir_all(&p).unwrap();
                link(s.join("outside"), &p);
            },
        ));
        v.push(case(
            "lock-symlink",
            &render_o(),
            Fail("symbolic link"),
            |s| {
                good_tree(s);
                let p = s.join("out/capi-render.lock");
                std::fs::rename(&p, s.join("outside/capi-render.lock")).unwrap();
                link(s.join("outside/capi-render.lock"), &p);
            },
        ));
        v.push(case(
            "lock-output-through-symlink",
            &render_o(),
            Fail("symbolic link"),
            |s| {
                good_tree(s);
                link(s.join("outside"), &s.join("out/escape"));
                tamper_lock(s, "escape/victim.yaml");
            },
        ));
        v.push(case(
            "topology-plan-created-symlink",
            &plan_o(),
            Fail("symbolic link"),
            |s| {
                topology(s, str::to_string);
                link(s.join("outside"), &s.join("out/created"));
            },
        ));
    }
    #[cfg(unix)]
    v.push(case(
        "journal-v1-old-dir-symlink-moves-outside-in",
        &render_o(),
        Fail("journal"),
        |s| {
            good_tree(s);
            fake_staging(s, "capi-render journal 1\nW 1 victim.yaml\n");
            link(s.join("outside"), &s.join("out/.capi-render.staging/old"));
        },
    ));
    #[cfg(unix)]
    v.push(case(
        "journal-v2-old-dir-symlink-moves-outside-in",
        &render_o(),
        Fail("cannot recover"),
        |s| {
            good_tree(s);
            fake_staging(s, "capi-render journal 2\nW 1 1 1 victim.yaml\n");
            link(s.join("outside"), &s.join("out/.capi-render.staging/old"));
        },
    ));
    v.push(case(
        "journal-v1-deletes-readme",
        &render_o(),
        Fail("journal"),
        |s| {
            good_tree(s);
            fake_staging(s, "capi-render journal 1\nW 0 README.md\n");
        },
    ));
    v.push(case(
        "journal-v2-fake-owner",
        &render_o(),
        Fail("cannot recover"),
        |s| {
            good_tree(s);
            fake_staging(s, "capi-render journal 2\nW 0 99 0 README.md\n");
        },
    ));
    v.push(case(
        "journal-restores-over-tree-file",
        &render_o(),
        Fail("cannot recover"),
        |s| {
            good_tree(s);
            fake_staging(s, "capi-render journal 2\nW 1 5 6 kustomization.yaml\n");
            write(
                &s.join("out/.capi-render.staging/old/kustomization.yaml"),
                "resources: [../../outside]\n",
            );
        },
    ));
    v.push(case(
        "journal-escapes-out",
        &render_o(),
        Fail("cannot recover"),
        |s| {
            good_tree(s);
            fake_staging(s, "capi-render journal 2\nW 0 1 0 ../outside/victim.yaml\n");
        },
    ));
    v.push(case(
        "journal-absolute",
        &render_o(),
        Fail("cannot recover"),
        |s| {
            good_tree(s);
            fake_staging(s, "capi-render journal 2\nR 1 /etc/hostname\n");
        },
    ));
    v.push(case(
        "journal-nul",
        &render_o(),
        Fail("cannot recover"),
        |s| {
            good_tree(s);
            fake_staging(s, "capi-render journal 2\nR 1 README.md\0x\n");
        },
    ));
    v.push(case(
        "staging-junk-without-journal",
        &render_o(),
        Fail("cannot recover"),
        |s| {
            good_tree(s);
            write(&s.join("out/.capi-render.staging/new/README.md"), "junk\n");
        },
    ));
    v.push(case(
        "staging-is-a-file",
        &render_o(),
        Fail("not a directory capi-render made"),
        |s| {
            good_tree(s);
            write(&s.join("out/.capi-render.staging"), "x");
        },
    ));
    for (name, path) in [
        ("lock-output-escapes", "../outside/victim.yaml"),
        ("lock-output-absolute", "/etc/hostname"),
        ("lock-output-in-staging", ".capi-render.staging/x"),
    ] {
        v.push(case(
            name,
            &render_o(),
            Fail("not a relative path inside OUT"),
            move |s| {
                good_tree(s);
                tamper_lock(s, path);
            },
        ));
    }
    // A lock that lists a file capi-render never wrote (README.md, whose bytes are
    // not the ones the lock records): neither -o nor --check treats it as ours.
    v.push(case(
        "lock-lists-a-foreign-file",
        &render_o(),
        Fail("not the file capi-render wrote"),
        |s| {
            good_tree(s);
            tamper_lock(s, "README.md");
        },
    ));
    v.push(case(
        "lock-lists-a-foreign-file-check",
        &[render_o(), vec!["--check"]].concat(),
        Fail("not the file capi-render wrote"),
        |s| {
            good_tree(s);
            tamper_lock(s, "README.md");
        },
    ));
    v.push(case(
        "lock-without-sums",
        &render_o(),
        Fail("outputs[0].sha256"),
        |s| {
            good_tree(s);
            let lock = s.join("out/capi-render.lock");
            let t = std::fs::read_to_string(&lock).unwrap();
            write(
                &lock,
                t.replace("outputs:\n", "outputs:\n- path: README.md\n"),
            );
        },
    ));
    v.push(case(
        "lock-garbage",
        &render_o(),
        Fail("capi-render.lock"),
        |s| {
            good_tree(s);
            write(&s.join("out/capi-render.lock"), "lockVersion: [\n");
        },
    ));
    v.push(case(
        "foreign-file-in-the-way",
        &render_o(),
        Fail("capi-render did not write it"),
        |s| {
            providers(s);
            write(&s.join("out/kustomization.yaml"), "mine\n");
        },
    ));
}
