"""Grading a class's exercise notebooks with the book's own self-checks.

``python -m course_lib.grading --chapter 05 --submissions FOLDER_OR_ZIP --out FOLDER``
(``make grade``) runs every submitted notebook in a process and a temporary folder of its
own, calls the chapter's checks on cases the students never saw, and writes a gradebook,
one feedback page per student and the written answers gathered by question.

Modules, one concern each:

* ``assignment`` -- what a chapter's student notebook asks for (exercises, checks, points);
* ``submission`` -- reading a class's files (a folder or a zip) and telling notebooks apart;
* ``worker`` -- the process that runs one submission's cells, then the checks;
* ``run`` -- running steps in a worker, with time limits, surviving its death;
* ``grade`` -- one submission: its steps and what they mean for each exercise;
* ``report`` -- the gradebook, the feedback pages, the answers, the summary;
* ``gradescope`` -- the same grading as a Gradescope autograder.
"""
