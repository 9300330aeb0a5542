"""/storage/v1 through supabase-py (storage3), as a Python developer calls it: buckets with the
service key, uploads, listings, downloads, signed URLs (supabase-py sends `expiresIn` as text),
and a signed-in user held to the row-level security policies of fixtures/storage.sql.

Run by tests/supabase-py.test.mjs, which starts the server and passes SUPABASE_URL,
SUPABASE_SERVICE_KEY and SUPABASE_ANON_KEY.
"""

import os
import unittest
import uuid

import httpx
from storage3.exceptions import StorageApiError
from supabase import create_client

URL = os.environ["SUPABASE_URL"]
SERVICE = os.environ["SUPABASE_SERVICE_KEY"]
ANON = os.environ["SUPABASE_ANON_KEY"]


class Buckets(unittest.TestCase):
    def setUp(self):
        self.sb = create_client(URL, SERVICE)
        self.bucket = f"py-{uuid.uuid4().hex[:8]}"
        self.sb.storage.create_bucket(self.bucket, options={"public": False, "file_size_limit": "20mb"})

    def tearDown(self):
        self.sb.storage.empty_bucket(self.bucket)
        self.sb.storage.delete_bucket(self.bucket)

    def test_buckets_list_and_read_as_the_models_want(self):
        listed = {b.id: b for b in self.sb.storage.list_buckets()}
        self.assertIn(self.bucket, listed)
        bucket = self.sb.storage.get_bucket(self.bucket)
        self.assertEqual(bucket.name, self.bucket)
        self.assertEqual(bucket.public, False)
        self.assertEqual(bucket.file_size_limit, 20_000_000)
        self.assertIsInstance(bucket.owner, str)
        self.sb.storage.update_bucket(self.bucket, {"public": True})
        self.assertTrue(self.sb.storage.get_bucket(self.bucket).public)

    def test_upload_list_download_and_signed_urls(self):
        files = self.sb.storage.from_(self.bucket)
        files.upload("docs/contrat.txt", b"Kinshasa Prestige Auto", {"content-type": "text/plain"})
        files.upload("docs/facture.txt", b"facture", {"content-type": "text/plain"})
        self.assertEqual(files.download("docs/contrat.txt"), b"Kinshasa Prestige Auto")
        names = sorted(entry["name"] for entry in files.list("docs"))
        self.assertEqual(names, ["contrat.txt", "facture.txt"])
        self.assertTrue(files.exists("docs/contrat.txt"))
        self.assertFalse(files.exists("docs/absent.txt"))

        signed = files.create_signed_url("docs/contrat.txt", 60)
        url = signed["signedURL"]
        self.assertIn("token=", url)
        self.assertEqual(httpx.get(url).content, b"Kinshasa Prestige Auto")
        many = files.create_signed_urls(["docs/contrat.txt", "docs/facture.txt"], 60)
        self.assertEqual(len(many), 2)
        self.assertEqual(httpx.get(many[1]["signedURL"]).content, b"facture")

        files.move("docs/facture.txt", "archive/facture.txt")
        self.assertEqual(files.download("archive/facture.txt"), b"facture")
        removed = files.remove(["docs/contrat.txt"])
        self.assertEqual([r["name"] for r in removed], ["docs/contrat.txt"])
        with self.assertRaises(StorageApiError):
            files.download("docs/contrat.txt")


class RowLevelSecurity(unittest.TestCase):
    def test_a_signed_in_user_writes_only_their_own_folder(self):
        client = create_client(URL, ANON)
        email = f"py-{uuid.uuid4().hex[:8]}@example.test"
        signed_up = client.auth.sign_up({"email": email, "password": "secret-py-1"})
        self.assertIsNotNone(signed_up.session, "MAILER_AUTOCONFIRM gives a session")
        uid = signed_up.user.id
        private = client.storage.from_("private")
        private.upload(f"{uid}/passeport.txt", b"mine")
        self.assertEqual(private.download(f"{uid}/passeport.txt"), b"mine")
        with self.assertRaises(StorageApiError) as refused:
            private.upload(f"{uuid.uuid4()}/intrus.txt", b"not mine")
        self.assertIn(str(refused.exception.status), ("400", "403"))
        anon = create_client(URL, ANON).storage.from_("private")
        self.assertEqual(anon.list(uid), [])


if __name__ == "__main__":
    unittest.main()
