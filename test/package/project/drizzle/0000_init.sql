CREATE TABLE "gift" ("id" serial PRIMARY KEY NOT NULL, "name" text NOT NULL);
